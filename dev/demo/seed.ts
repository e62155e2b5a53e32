// What a merchant would have done before the demo starts, done through the app's own code: the app installed
// (Shopify's offline session, stored by the app's encrypted session storage) and the service settings saved
// (the Settings page's saveSettings, with its validation and encryption), pointing at the emulator.
import type { PrismaClient } from "@prisma/client";
import { Session } from "@shopify/shopify-api";
import { PrismaSessionStorage } from "@shopify/shopify-app-session-storage-prisma";
import { CONFIRM_ORIGIN_FIELD } from "../../app/connections/settings-form.server";
import { saveSettings } from "../../app/connections/settings-store.server";
import { EncryptedSessionStorage } from "../../app/crypto/encrypted-session-storage.server";
import type { ClientConfig } from "../../emulator/config";

export async function installDemoShop(prisma: PrismaClient, shop: string, scopes: string): Promise<void> {
  const storage = new EncryptedSessionStorage(new PrismaSessionStorage(prisma));
  const id = `offline_${shop}`;
  // A data dir from an older version of the app holds fewer scopes: stored again, as approving the new ones would.
  if ((await storage.loadSession(id))?.scope === scopes) return;
  // The Admin API is answered by the demo's handlers, which take any token: this one only has to exist.
  await storage.storeSession(
    new Session({ id, shop, state: "", isOnline: false, scope: scopes, accessToken: "shpat_demo_offline_token" }),
  );
}

/**
 * The Settings form, filled in with the emulator's URLs and its first app's credentials. On a second start the
 * emulator has a new port and has forgotten every token it issued, so the move to its new address is confirmed
 * (as a merchant would on the Settings page): connected customers are marked to reconnect, and the demo
 * reconnects its customer right after.
 */
export async function configureService(
  prisma: PrismaClient,
  shop: string,
  emulatorUrl: string,
  client: ClientConfig,
): Promise<void> {
  const result = await saveSettings(prisma, shop, {
    [CONFIRM_ORIGIN_FIELD]: "true",
    environment: "sandbox",
    baseUrl: emulatorUrl,
    sandboxBaseUrl: emulatorUrl,
    authUrl: emulatorUrl,
    clientId: client.client_id,
    clientSecret: client.client_secret,
    signingSecret: client.signing_secrets[client.signing_secrets.length - 1],
  });
  if (!result.ok) throw new Error(`the app refused the demo's service settings: ${refusal(result)}`);
}

/** What a refused save said, field by field, in the Settings page's own words. */
export function refusal(result: Extract<Awaited<ReturnType<typeof saveSettings>>, { ok: false }>): string {
  const parts = Object.entries(result.fieldErrors).map(([field, message]) => `${field}: ${String(message)}`);
  if (result.originChange) parts.push(result.originChange.message);
  return parts.length > 0 ? parts.join("; ") : "no reason given";
}
