// The decrypted service settings the client takes, and the one rule for "the service is configured". Nothing here
// caches: every request reads the row again, so a replaced secret is used from the next request on.
import type { Db } from "../db/sql.server";
import type { ServiceSettings } from "../service/client.server";
import { bindings, openFor, SecretBoxError, type Keyring } from "../crypto/secret-box.server";
import { readServiceRow, type ServiceSettingsRow } from "../db/shop-settings.server";

/**
 * The one rule for "the service is configured": what calling it takes is stored. Imports and handoffs go to the
 * active environment's base URL, signed with the signing secret; connecting a customer takes the auth URL, the
 * client id and the client secret. (The settings form asks for both base URLs; "Check connection" says so when the
 * sandbox's is missing.)
 */
export function isServiceConfigured<R extends ServiceSettingsRow>(
  row: R | null | undefined,
): row is R & { clientSecretEnc: string; signingSecretEnc: string } {
  if (!row) return false;
  const baseUrl = row.environment === "production" ? row.baseUrl : row.sandboxBaseUrl;
  return Boolean(baseUrl && row.authUrl && row.clientId && row.clientSecretEnc && row.signingSecretEnc);
}

/**
 * The decrypted settings the service client takes, read fresh from the database (no caching, so a rotated secret
 * applies to the next call), or null when the shop has not configured the service. Throws SecretBoxError when a
 * stored secret cannot be decrypted (e.g. its key was removed from ENCRYPTION_KEYS). `row`: the stored columns
 * when the caller read them already (an import job's lease; null: the shop has no settings row).
 */
export async function loadServiceSettings(
  db: Db,
  shop: string,
  keyring?: Keyring,
  options: { row?: ServiceSettingsRow | null } = {},
): Promise<ServiceSettings | null> {
  const row = options.row !== undefined ? options.row : await readServiceRow(db, shop);
  return serviceSettingsFromRow(shop, row, keyring);
}

/**
 * The decrypted settings, or null when the shop has not configured the service or a stored secret cannot be
 * decrypted (its key was removed from ENCRYPTION_KEYS, or the value was altered): for every place that carries on
 * without the service (the shopper sees "not available", revoking is skipped while erasing goes on); the settings
 * page's "Check connection" says which. `row`: the service columns when the caller read them already (the
 * Continue cart click reads them with its own settings in one statement).
 */
export async function loadServiceSettingsOrNull(
  db: Db,
  shop: string,
  options: { keyring?: Keyring; row?: ServiceSettingsRow | null } = {},
): Promise<ServiceSettings | null> {
  const row = "row" in options ? (options.row ?? null) : undefined;
  try {
    return await loadServiceSettings(db, shop, options.keyring, { row });
  } catch (err) {
    if (err instanceof SecretBoxError) return null;
    throw err;
  }
}

/** The shop's ShopSettings row → the decrypted settings the client takes, or null while it is not configured. */
function serviceSettingsFromRow(
  shop: string,
  row: ServiceSettingsRow | null,
  keyring?: Keyring,
): ServiceSettings | null {
  if (!isServiceConfigured(row)) return null;
  return {
    environment: row.environment === "production" ? "production" : "sandbox",
    baseUrl: row.baseUrl,
    sandboxBaseUrl: row.sandboxBaseUrl,
    authUrl: row.authUrl,
    clientId: row.clientId,
    clientSecret: openFor(bindings.shopSettings(shop, "clientSecretEnc"), row.clientSecretEnc, keyring),
    signingSecret: openFor(bindings.shopSettings(shop, "signingSecretEnc"), row.signingSecretEnc, keyring),
  };
}
