// Where the store's customer accounts live (customerAccountsV2: their version and root URL), as Shopify's Admin API
// says: the page an account Connect comes back to (./account-connect.server.ts), and the admin's home. Kept per shop
// for a while, so Connect clicks cost no Admin API query.
import { isLoopbackHost } from "../loopback";
import type { AdminGraphql } from "../shopify/admin-api.server";

export const CUSTOMER_ACCOUNTS_QUERY = `#graphql
query CustomerAccounts {
  shop { customerAccountsV2 { customerAccountsVersion url } }
}`;

export type AccountsVersion = "NEW_CUSTOMER_ACCOUNTS" | "CLASSIC";

export interface CustomerAccountsInfo {
  version: AccountsVersion | null;
  /** The root of the store's customer account pages (https), when Shopify said. */
  url: string | null;
}

/** Which customer accounts the store uses and where they live, as Shopify's Admin API says; nulls when it cannot. */
export async function customerAccountsOf(shop: string, adminGraphql: AdminGraphql): Promise<CustomerAccountsInfo> {
  try {
    const answer = (await adminGraphql(shop, CUSTOMER_ACCOUNTS_QUERY, {})) as {
      data?: { shop?: { customerAccountsV2?: { customerAccountsVersion?: unknown; url?: unknown } | null } | null };
    };
    const v2 = answer?.data?.shop?.customerAccountsV2;
    const version =
      v2?.customerAccountsVersion === "NEW_CUSTOMER_ACCOUNTS" || v2?.customerAccountsVersion === "CLASSIC"
        ? v2.customerAccountsVersion
        : null;
    return { version, url: accountUrl(v2?.url) };
  } catch {
    return { version: null, url: null };
  }
}

function accountUrl(value: unknown): string | null {
  if (typeof value !== "string" || value.length > 500) return null;
  try {
    const url = new URL(value);
    // http only for the local stand-in (dev/demo), which runs without TLS on the loopback interface.
    const local = url.protocol === "http:" && isLoopbackHost(url.hostname);
    if ((url.protocol !== "https:" && !local) || url.username || url.password) return null;
    url.search = "";
    url.hash = "";
    return url.toString().replace(/\/+$/, "");
  } catch {
    return null;
  }
}

export async function accountRootOf(shop: string, adminGraphql: AdminGraphql, now: number): Promise<string | null> {
  const cached = cachedAccountUrl(shop, now);
  if (cached !== undefined) return cached;
  const answer = await customerAccountsOf(shop, adminGraphql);
  if (answer.version !== null) rememberAccountUrl(shop, answer.url, now); // Shopify answered: null is its answer too
  return answer.url;
}

// The account URL changes only when a merchant switches account versions or domains, while every Connect click
// needs it: kept per shop for ACCOUNT_URL_TTL_MS, so clicks cost no Admin API query. Failures are not kept.
export const ACCOUNT_URL_TTL_MS = 10 * 60 * 1000;
const MAX_CACHED_SHOPS = 10_000;
const accountUrls = new Map<string, { url: string | null; at: number }>();

function cachedAccountUrl(shop: string, now: number): string | null | undefined {
  const hit = accountUrls.get(shop);
  if (!hit || now - hit.at >= ACCOUNT_URL_TTL_MS || now < hit.at) return undefined;
  return hit.url;
}

function rememberAccountUrl(shop: string, url: string | null, now: number) {
  accountUrls.delete(shop);
  accountUrls.set(shop, { url, at: now });
  if (accountUrls.size > MAX_CACHED_SHOPS) accountUrls.delete(accountUrls.keys().next().value!);
}
