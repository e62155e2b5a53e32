// Service settings in tests: a complete settings form (public https names; nothing is called), what a merchant saves
// on the settings page; and the stored row a configured shop has.
import { bindings, sealFor, type Keyring } from "~/crypto/secret-box.server";
import type { ServiceSettings } from "~/service/client.server";

/** What a merchant saves on the settings page. */
export const SERVICE_SETTINGS_FORM = {
  environment: "sandbox",
  baseUrl: "https://service.example",
  sandboxBaseUrl: "https://sandbox.example",
  authUrl: "https://auth.example",
  clientId: "client-1",
  clientSecret: "client-secret-1",
  signingSecret: "signing-secret-1",
};

/**
 * The ShopSettings row of `shop` that holds `settings`, its two secrets sealed to their row and column as the app
 * seals them (with `keyring`, else the app's ENCRYPTION_KEYS). Without `environment` the column keeps its default.
 */
export function serviceSettingsRow(
  shop: string,
  settings: Omit<ServiceSettings, "environment"> & { environment?: ServiceSettings["environment"] },
  keyring?: Keyring,
) {
  const { environment, baseUrl, sandboxBaseUrl, authUrl, clientId } = settings;
  const seal = (column: "clientSecretEnc" | "signingSecretEnc", secret: string) =>
    sealFor(bindings.shopSettings(shop, column), secret, keyring);
  const secrets = {
    clientSecretEnc: seal("clientSecretEnc", settings.clientSecret),
    signingSecretEnc: seal("signingSecretEnc", settings.signingSecret),
  };
  return { shop, ...(environment ? { environment } : {}), baseUrl, sandboxBaseUrl, authUrl, clientId, ...secrets };
}
