// Test defaults over the stand-ins for Shopify in dev/shopify (shared with the demo): session tokens, stored
// sessions, webhook and app proxy signatures, all for the test shop and the test app's credentials.
import type { PrismaClient } from "@prisma/client";
import { Session } from "@shopify/shopify-api";
import { PrismaSessionStorage } from "@shopify/shopify-app-session-storage-prisma";
import { EncryptedSessionStorage } from "../../app/crypto/encrypted-session-storage.server";
import type { Keyring } from "../../app/crypto/secret-box.server";
import type { AdminGraphql } from "../../app/shopify/admin-api.server";
import { LOCAL_API_KEY, LOCAL_API_SECRET, LOCAL_SHOP } from "../../dev/shopify/app-proxy";
import {
  mintCustomerAccountToken as devMintCustomerAccountToken,
  mintSessionToken as devMintSessionToken,
} from "../../dev/shopify/session-token";
import { sendWebhook as devSendWebhook, webhookHmac as devWebhookHmac } from "../../dev/shopify/webhooks";

export const TEST_API_KEY = LOCAL_API_KEY;
export const TEST_API_SECRET = LOCAL_API_SECRET;
export const TEST_SHOP = LOCAL_SHOP;

/** A session token as App Bridge would mint it (HS256 with the app's API secret). */
export function mintSessionToken(
  shop = TEST_SHOP,
  options: { secret?: string; apiKey?: string; lifetimeSeconds?: number } = {},
) {
  return devMintSessionToken(shop, {
    apiKey: options.apiKey ?? TEST_API_KEY,
    secret: options.secret ?? TEST_API_SECRET,
    lifetimeSeconds: options.lifetimeSeconds,
  });
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
  return devWebhookHmac(body, secret);
}

/** The headers Shopify sends with an orders/create delivery of `{}` to the test shop, with `extra` over them. */
export function shopifyWebhookHeaders(extra: Record<string, string> = {}): Record<string, string> {
  return {
    "Content-Type": "application/json",
    "X-Shopify-Topic": "orders/create",
    "X-Shopify-Shop-Domain": TEST_SHOP,
    "X-Shopify-Hmac-Sha256": webhookHmac("{}"),
    "X-Shopify-Webhook-Id": "w-1",
    "X-Shopify-Event-Id": "e-1",
    ...extra,
  };
}

/** Posts a webhook the way Shopify does, signed with the test secret unless `hmac` is given. */
export function sendWebhook(
  appUrl: string,
  topic: string,
  payload: unknown,
  options: { shop?: string; eventId?: string; hmac?: string; webhookId?: string; path?: string } = {},
) {
  return devSendWebhook(appUrl, topic, payload, {
    ...options,
    shop: options.shop ?? TEST_SHOP,
    secret: TEST_API_SECRET,
  });
}

// The local stand-in's defaults are the test app's credentials and shop.
export { proxyUrl, signProxyQuery } from "../../dev/shopify/app-proxy";

/** A customer account extension's session token (dev/shopify/session-token.ts) for `customerId` of `shop`. */
export function mintCustomerToken(
  customerId: string,
  shop = TEST_SHOP,
  options: { secret?: string; apiKey?: string; lifetimeSeconds?: number; issuedAgoSeconds?: number } = {},
) {
  return devMintCustomerAccountToken(shop, customerId, {
    apiKey: options.apiKey ?? TEST_API_KEY,
    secret: options.secret ?? TEST_API_SECRET,
    lifetimeSeconds: options.lifetimeSeconds,
    issuedAgoSeconds: options.issuedAgoSeconds,
  });
}

/**
 * The Admin API as the worker calls it: Shopify's library with the shop's stored offline session
 * (`unauthenticated.admin`). Imported here, late: the library takes the global fetch (which MSW replaces) when it
 * is first imported.
 */
export async function adminGraphqlViaShopify(): Promise<AdminGraphql> {
  const [{ adminGraphqlVia }, { unauthenticated }] = await Promise.all([
    import("../../app/shopify/admin-api.server"),
    import("../../app/shopify.server"),
  ]);
  return adminGraphqlVia(unauthenticated.admin);
}
