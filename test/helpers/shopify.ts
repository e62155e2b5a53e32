// Test defaults over the stand-ins for Shopify in dev/shopify (shared with the demo): session tokens, stored
// sessions, webhook and app proxy signatures, all for the test shop and the test app's credentials.
import type { PrismaClient } from "@prisma/client";
import { LOCAL_API_KEY, LOCAL_API_SECRET, LOCAL_SHOP, proxyUrl as devProxyUrl, signProxyQuery as devSignProxyQuery } from "../../dev/shopify/app-proxy";
import { mintSessionToken as devMintSessionToken } from "../../dev/shopify/session-token";
import { sendWebhook as devSendWebhook, webhookHmac as devWebhookHmac } from "../../dev/shopify/webhooks";

export const TEST_API_KEY = LOCAL_API_KEY;
export const TEST_API_SECRET = LOCAL_API_SECRET;
export const TEST_SHOP = LOCAL_SHOP;

/** A session token as App Bridge would mint it (HS256 with the app's API secret). */
export function mintSessionToken(shop = TEST_SHOP, options: { secret?: string; apiKey?: string; lifetimeSeconds?: number } = {}) {
  return devMintSessionToken(shop, {
    apiKey: options.apiKey ?? TEST_API_KEY,
    secret: options.secret ?? TEST_API_SECRET,
    lifetimeSeconds: options.lifetimeSeconds,
  });
}

/** The offline session the app would have stored at install; without it the library tries a token exchange. */
export async function seedOfflineSession(prisma: PrismaClient, shop = TEST_SHOP) {
  await prisma.session.upsert({
    where: { id: `offline_${shop}` },
    update: {},
    create: {
      id: `offline_${shop}`,
      shop,
      state: "",
      isOnline: false,
      scope: "read_orders,read_fulfillments,read_customers,read_products",
      accessToken: "shpat_test_offline_token",
    },
  });
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

/** Posts a webhook the way Shopify does, signed with the test secret unless `hmac` is given. */
export function sendWebhook(
  appUrl: string,
  topic: string,
  payload: unknown,
  options: { shop?: string; eventId?: string; hmac?: string; webhookId?: string; path?: string } = {},
) {
  return devSendWebhook(appUrl, topic, payload, { ...options, shop: options.shop ?? TEST_SHOP, secret: TEST_API_SECRET });
}

export function signProxyQuery(params: Record<string, string>, secret = TEST_API_SECRET): URLSearchParams {
  return devSignProxyQuery(params, secret);
}

/** A storefront request through the app proxy: the path under /proxy plus Shopify's signed parameters. */
export function proxyUrl(
  appUrl: string,
  path: string,
  options: { shop?: string; customerId?: string | null; extra?: Record<string, string>; secret?: string } = {},
) {
  return devProxyUrl(appUrl, path, {
    ...options,
    shop: options.shop ?? TEST_SHOP,
    secret: options.secret ?? TEST_API_SECRET,
    customerId: options.customerId ?? "",
  });
}
