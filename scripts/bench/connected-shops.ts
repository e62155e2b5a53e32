// Shops as a deployment has them, for the bench's worker processes (worker-child.ts runs the app's own
// collaborators): the service settings saved with their secrets sealed, and one connected customer per shop whose
// tokens (minted in the emulator) are sealed in its grant row, all with the key the worker processes are given.
import { randomUUID } from "node:crypto";
import type { PrismaClient } from "@prisma/client";
import { bindings, parseKeyring, sealFor } from "../../app/crypto/secret-box.server";
import { serviceOrigins } from "../../app/service/origins.server";
import { DEFAULT_CONFIG } from "../../emulator/config";
import { emulatorInternals, type RunningEmulator } from "../../emulator/server";

// The bench's emulators run with the documented sandbox app (DEFAULT_CONFIG, its rate limit changed).
const CLIENT = DEFAULT_CONFIG.clients[0];

/** Saves the emulator as every shop's service and connects `customerId` of each shop to workspace ws-acme. */
export async function connectShops(
  prisma: PrismaClient,
  emulator: RunningEmulator,
  shops: string[],
  customerId: string,
  encryptionKeys: string,
): Promise<void> {
  const keyring = parseKeyring(encryptionKeys);
  const urls = { baseUrl: emulator.url, sandboxBaseUrl: emulator.url, authUrl: emulator.url };
  const oauth = emulatorInternals(emulator).oauth;
  await prisma.shopSettings.createMany({
    data: shops.map((shop) => ({
      shop,
      environment: "sandbox",
      ...urls,
      clientId: CLIENT.client_id,
      clientSecretEnc: sealFor(bindings.shopSettings(shop, "clientSecretEnc"), CLIENT.client_secret, keyring),
      signingSecretEnc: sealFor(bindings.shopSettings(shop, "signingSecretEnc"), CLIENT.signing_secrets[0], keyring),
    })),
  });
  await prisma.customerGrant.createMany({
    data: shops.map((shop) => {
      const tokens = oauth.issueTokens(
        { id: randomUUID(), clientId: CLIENT.client_id, workspaceId: "ws-acme", revoked: false },
        ["orders:write", "shipments:write"],
        Date.now(),
      );
      const row = { shop, customerId };
      return {
        ...row,
        workspaceId: "ws-acme",
        scopes: tokens.scope,
        accessTokenEnc: sealFor(bindings.customerGrant(row, "accessTokenEnc"), tokens.access_token, keyring),
        accessTokenExpiresAt: new Date(Date.now() + tokens.expires_in * 1000),
        refreshTokenEnc: sealFor(bindings.customerGrant(row, "refreshTokenEnc"), tokens.refresh_token, keyring),
        boundOrigins: serviceOrigins(urls),
      };
    }),
  });
}
