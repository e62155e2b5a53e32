// Stand-ins for what Shopify itself would send: session tokens, stored sessions, webhook and app proxy signatures.
import { SHOPIFY_API_VERSION } from "../../app/lib/shopify-api-version";
import { createHmac, randomUUID } from "node:crypto";
import type { PrismaClient } from "@prisma/client";
import { Session } from "@shopify/shopify-api";
import { PrismaSessionStorage } from "@shopify/shopify-app-session-storage-prisma";
import { SignJWT } from "jose";
import { LOCAL_API_KEY, LOCAL_API_SECRET, LOCAL_SHOP } from "../../dev/shopify/app-proxy";
import { EncryptedSessionStorage } from "../../app/crypto/encrypted-session-storage.server";
import type { Keyring } from "../../app/crypto/secret-box.server";

export const TEST_API_KEY = LOCAL_API_KEY;
export const TEST_API_SECRET = LOCAL_API_SECRET;
export const TEST_SHOP = LOCAL_SHOP;

/** A session token as App Bridge would mint it (HS256 with the app's API secret). */
export async function mintSessionToken(
  shop = TEST_SHOP,
  options: { secret?: string; apiKey?: string; lifetimeSeconds?: number } = {},
) {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ dest: `https://${shop}`, sid: randomUUID() })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setIssuer(`https://${shop}/admin`)
    .setAudience(options.apiKey ?? TEST_API_KEY)
    .setSubject("1")
    .setIssuedAt(now - 5)
    .setNotBefore(now - 5)
    .setExpirationTime(now + (options.lifetimeSeconds ?? 600))
    .setJti(randomUUID())
    .sign(new TextEncoder().encode(options.secret ?? TEST_API_SECRET));
}

export const TEST_OFFLINE_TOKEN = "shpat_test_offline_token";

/**
 * The offline session the app would have stored at install (without it the library tries a token exchange),
 * stored the way production stores it: through the app's session storage, so the token is encrypted at rest
 * (with ENCRYPTION_KEYS, or `keyring` when the test starts the app with keys of its own).
 */
export async function seedOfflineSession(
  prisma: PrismaClient,
  shop = TEST_SHOP,
  options: { accessToken?: string; scope?: string; keyring?: Keyring } = {},
) {
  const { keyring } = options;
  const storage = new EncryptedSessionStorage(new PrismaSessionStorage(prisma), keyring ? () => keyring : undefined);
  await storage.storeSession(
    new Session({
      id: `offline_${shop}`,
      shop,
      state: "",
      isOnline: false,
      scope: options.scope ?? "read_orders,read_fulfillments,read_customers,read_products",
      accessToken: options.accessToken ?? TEST_OFFLINE_TOKEN,
    }),
  );
}

/** An embedded admin URL as Shopify's admin frame would open it. */
export async function embeddedUrl(appUrl: string, path: string, shop = TEST_SHOP) {
  const url = new URL(path, appUrl);
  url.searchParams.set("shop", shop);
  url.searchParams.set("host", Buffer.from(`${shop}/admin`).toString("base64url"));
  url.searchParams.set("embedded", "1");
  url.searchParams.set("id_token", await mintSessionToken(shop));
  return url.toString();
}

export function webhookHmac(body: string, secret = TEST_API_SECRET) {
  return createHmac("sha256", secret).update(body, "utf8").digest("base64");
}

/** Posts a webhook the way Shopify does, signed unless `hmac` is given. */
export async function sendWebhook(
  appUrl: string,
  topic: string,
  payload: unknown,
  options: { shop?: string; eventId?: string; hmac?: string; webhookId?: string; path?: string } = {},
) {
  const body = JSON.stringify(payload);
  return fetch(new URL(options.path ?? `/webhooks/${topic}`, appUrl), {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      "X-Shopify-Topic": topic,
      "X-Shopify-Shop-Domain": options.shop ?? TEST_SHOP,
      "X-Shopify-Hmac-Sha256": options.hmac ?? webhookHmac(body),
      "X-Shopify-Webhook-Id": options.webhookId ?? randomUUID(),
      "X-Shopify-Event-Id": options.eventId ?? randomUUID(),
      "X-Shopify-Api-Version": SHOPIFY_API_VERSION,
      "X-Shopify-Triggered-At": new Date().toISOString(),
    },
    body,
  });
}

export { proxyUrl, signProxyQuery } from "../../dev/shopify/app-proxy";
