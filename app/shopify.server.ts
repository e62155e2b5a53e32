// The only place that knows Shopify's auth settings (after Shopify's Remix app template).
import { SHOPIFY_API_VERSION } from "./shopify/api-version";
import "@shopify/shopify-app-remix/adapters/node";
import { ApiVersion, AppDistribution, LogSeverity, shopifyApp } from "@shopify/shopify-app-remix/server";
import type { SessionStorage } from "@shopify/shopify-app-session-storage";
import { PrismaSessionStorage } from "@shopify/shopify-app-session-storage-prisma";
import { shopifyApi } from "@shopify/shopify-api";
import prisma, { database } from "./db.server";
import { EncryptedSessionStorage } from "./crypto/encrypted-session-storage.server";
import { createOfflineTokenRefresher } from "./crypto/offline-token-refresh.server";
import { defaultKeyring } from "./crypto/secret-box.server";
import { env } from "./env.server";
import { logger } from "./lib/logger.server";
import { customDomainTransformations } from "./shopify/custom-domain";

const config = env();

// One version for the whole app; refuse to start on one this library does not know.
if (!(Object.values(ApiVersion) as string[]).includes(SHOPIFY_API_VERSION)) {
  throw new Error(`Shopify API version ${SHOPIFY_API_VERSION} is not known to @shopify/shopify-api`);
}
const apiVersion = SHOPIFY_API_VERSION as ApiVersion;
// Shops at SHOP_CUSTOM_DOMAIN are accepted besides *.myshopify.com (app/shopify/custom-domain.ts).
const customDomains = customDomainTransformations(config.SHOP_CUSTOM_DOMAIN);

// Shopify's library formats its own lines (request values such as ?shop= among them, before any check) and would
// print them raw with console.*: they go through the app's one logger instead (the "shopify" child), so each is a
// JSON string with the same redaction as the app's own lines (app/lib/logger.server.ts). Its level follows
// LOG_LEVEL (it has no "off", so silent keeps errors only; pino then drops those too).
const shopifyLogLevel = {
  fatal: LogSeverity.Error,
  error: LogSeverity.Error,
  silent: LogSeverity.Error,
  warn: LogSeverity.Warning,
  info: LogSeverity.Info,
  debug: LogSeverity.Debug,
  trace: LogSeverity.Debug,
}[config.LOG_LEVEL];
const shopifyLogger = {
  level: shopifyLogLevel,
  log: (severity: LogSeverity, message: string) => {
    const log = logger("shopify");
    if (severity === LogSeverity.Error) log.error(message);
    else if (severity === LogSeverity.Warning) log.warn(message);
    // At each start the library announces every future flag left off, over several lines; the ones it names
    // (REST resource fields, managed pricing) are features the app does not use, so they stay at debug.
    else if (severity === LogSeverity.Info && !/^\[shopify-api\/INFO\] Future flag /.test(message)) log.info(message);
    else log.debug(message);
  },
};

// The process hands its database in when it starts (app/runtime), after this module is imported: the Prisma
// storage (which queries its table as soon as it is made) is made at its first use.
let prismaStorage: PrismaSessionStorage<typeof prisma> | undefined;
const storage = () => (prismaStorage ??= new PrismaSessionStorage(prisma));
const sessionsInDatabase: SessionStorage & { isReady(): Promise<boolean> } = {
  storeSession: (session) => storage().storeSession(session),
  loadSession: (id) => storage().loadSession(id),
  deleteSession: (id) => storage().deleteSession(id),
  deleteSessions: (ids) => storage().deleteSessions(ids),
  findSessionsByShop: (shop) => storage().findSessionsByShop(shop),
  isReady: () => storage().isReady(),
};
// Shopify's token endpoint through its own library, for the one refresher per shop (the app's shopifyApp keeps
// its API object to itself): same key, secret and version.
const tokenApi = shopifyApi({
  apiKey: config.SHOPIFY_API_KEY,
  apiSecretKey: config.SHOPIFY_API_SECRET,
  apiVersion,
  scopes: config.SCOPES.split(","),
  hostName: new URL(config.SHOPIFY_APP_URL).host,
  hostScheme: new URL(config.SHOPIFY_APP_URL).protocol === "http:" ? "http" : "https",
  isEmbeddedApp: true,
  logger: shopifyLogger,
  domainTransformations: customDomains,
});
const refreshOfflineToken = createOfflineTokenRefresher({
  prisma: () => prisma,
  sharedDatabase: () => database().kind === "postgres",
  refresh: async (shop, refreshToken) => (await tokenApi.auth.refreshToken({ shop, refreshToken })).session,
  keyring: defaultKeyring,
});

// What the app does after Shopify's library stored a new offline session for a shop (afterAuth): the process hands
// it in where it wires the app (app/runtime/web.server.ts), so this file reaches into no area of the app.
let afterAuth: ((shop: string) => Promise<unknown>) | undefined;

/** Sets what runs after a shop authenticated (a first install, or the merchant back after app/uninstalled). */
export function onShopAuthenticated(hook: ((shop: string) => Promise<unknown>) | undefined): void {
  afterAuth = hook;
}

const shopify = shopifyApp({
  apiKey: config.SHOPIFY_API_KEY,
  apiSecretKey: config.SHOPIFY_API_SECRET,
  apiVersion,
  scopes: config.SCOPES.split(","),
  appUrl: config.SHOPIFY_APP_URL,
  authPathPrefix: "/auth",
  sessionStorage: new EncryptedSessionStorage(sessionsInDatabase, defaultKeyring, refreshOfflineToken),
  distribution: AppDistribution.AppStore,
  // Expiring offline tokens (Shopify requires them for public apps from 2027-01-01): the library refreshes the
  // token before an Admin API call when it is within 5 minutes of expiry, and stores the new session through
  // EncryptedSessionStorage (access and refresh token encrypted).
  future: { unstable_newEmbeddedAuthStrategy: true, expiringOfflineAccessTokens: true },
  hooks: {
    // A new offline session after app/uninstalled means the merchant is back: the shop's waiting jobs run again.
    afterAuth: async ({ session }) => {
      await afterAuth?.(session.shop);
    },
  },
  logger: shopifyLogger,
  domainTransformations: customDomains,
});

export default shopify;
export const addDocumentResponseHeaders = shopify.addDocumentResponseHeaders;
export const authenticate = shopify.authenticate;
export const unauthenticated = shopify.unauthenticated;
export const login = shopify.login;
export const registerWebhooks = shopify.registerWebhooks;
export const sessionStorage = shopify.sessionStorage;
