// shopify.app.toml is the source of truth Shopify deploys: its scopes, webhook subscriptions, app proxy and auth
// URLs must match what the code uses and the routes that exist.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { parse } from "smol-toml";
import { describe, expect, it } from "vitest";
import { BACKFILL_QUERY } from "~/sync/backfill-queries.server";
import { CART_PRICES_QUERY } from "~/handoff/market-prices.server";
import { DEFAULT_PROXY_PREFIX } from "~/shopify/app-proxy.server";
import { SHOPIFY_API_VERSION } from "~/shopify/api-version";
import { parseEnv } from "~/env.server";
import { THEME_SETTINGS_QUERY } from "~/admin/theme-setup.server";
import { includeFields } from "~/sync/minimise.server";

const ROOT = path.resolve(__dirname, "../..");
const read = (file: string) => readFileSync(path.join(ROOT, file), "utf8");

interface AppToml {
  application_url: string;
  access_scopes: { scopes: string };
  auth: { redirect_urls: string[] };
  webhooks: {
    api_version: string;
    subscriptions: { topics?: string[]; compliance_topics?: string[]; uri: string; include_fields?: string[] }[];
  };
  app_proxy: { url: string; prefix: string; subpath: string };
}
const toml = parse(read("shopify.app.toml")) as unknown as AppToml;
const scopes = (list: string) =>
  list
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)
    .sort();
const routes = readdirSync(path.join(ROOT, "app/routes"));

/** The Remix route file (flat routes: "/" becomes ".") that serves a path, if any. */
function routeFor(pathname: string): string | undefined {
  const base = pathname.replace(/^\/|\/$/g, "").replaceAll("/", ".");
  return [`${base}.tsx`, `${base}._index.tsx`, `${base}/route.tsx`].find((f) =>
    existsSync(path.join(ROOT, "app/routes", f)),
  );
}

describe("shopify.app.toml", () => {
  it("subscribes every webhook to an existing route with an action, and every webhook route is subscribed", () => {
    const subscribed = new Set<string>();
    for (const sub of toml.webhooks.subscriptions) {
      const topics = [...(sub.topics ?? []), ...(sub.compliance_topics ?? [])];
      expect(topics, sub.uri).toHaveLength(1); // one topic per route, so the route knows what it receives
      expect(sub.uri).toBe(`/webhooks/${topics[0]}`);
      const file = routeFor(sub.uri);
      expect(file, sub.uri).toBeDefined();
      expect(read(`app/routes/${file}`)).toMatch(/export const action\b/);
      subscribed.add(file!);
    }
    expect(routes.filter((f) => f.startsWith("webhooks.")).sort()).toEqual([...subscribed].sort());
    const compliance = toml.webhooks.subscriptions.flatMap((s) => s.compliance_topics ?? []).sort();
    expect(compliance).toEqual(["customers/data_request", "customers/redact", "shop/redact"]);
  });

  it("uses the app's Admin API version for webhooks", async () => {
    expect(toml.webhooks.api_version).toBe(SHOPIFY_API_VERSION);
  });

  it("points the app proxy at an existing route, under the prefix the connect flow expects", () => {
    const url = new URL(toml.app_proxy.url);
    expect(url.origin).toBe(new URL(toml.application_url).origin);
    expect(routeFor(url.pathname)).toBeDefined();
    expect(`/${toml.app_proxy.prefix}/${toml.app_proxy.subpath}`).toBe(DEFAULT_PROXY_PREFIX);
  });

  it("asks Shopify for only the order and fulfillment fields the app keeps (include_fields = the minimiser's allowlist)", () => {
    for (const sub of toml.webhooks.subscriptions) {
      const topic = sub.topics?.[0] ?? "";
      const kind = topic.startsWith("orders/") ? "order" : topic.startsWith("fulfillments/") ? "shipment" : null;
      if (!kind) continue;
      expect(sub.include_fields, topic).toBeDefined();
      expect([...sub.include_fields!].sort(), topic).toEqual(includeFields(kind).sort());
    }
  });

  it("lists auth redirect URLs the auth route serves, on the app's own origin", () => {
    expect(read("app/shopify.server.ts")).toContain('authPathPrefix: "/auth"');
    expect(routes).toContain("auth.$.tsx");
    for (const redirect of toml.auth.redirect_urls) {
      const url = new URL(redirect);
      expect(url.origin).toBe(new URL(toml.application_url).origin);
      expect(url.pathname).toMatch(/^\/auth\/[\w/]+$/);
    }
  });

  it("asks for the scopes the code uses and no more, the same as SCOPES everywhere", () => {
    const declared = scopes(toml.access_scopes.scopes);
    // Each scope with the code that needs it: drop the use, and this test asks for the scope to go too.
    const hooks = toml.webhooks.subscriptions.flatMap((s) => s.topics ?? []);
    const used: Record<string, boolean> = {
      read_orders: /\borders\(/.test(BACKFILL_QUERY) && hooks.some((t) => t.startsWith("orders/")),
      read_fulfillments: hooks.some((t) => t.startsWith("fulfillments/")),
      read_customers: /\bcustomer \{/.test(BACKFILL_QUERY),
      read_products: /\bproduct \{/.test(BACKFILL_QUERY),
      read_themes: /\bthemes\(/.test(THEME_SETTINGS_QUERY),
      write_app_proxy: Boolean(toml.app_proxy?.url),
      unauthenticated_read_checkouts: /\bcart\(id:/.test(CART_PRICES_QUERY),
      unauthenticated_read_product_listings: /\.\.\. on ProductVariant/.test(CART_PRICES_QUERY),
    };
    expect(declared).toEqual(Object.keys(used).sort());
    for (const [scope, isUsed] of Object.entries(used)) expect(isUsed, scope).toBe(true);

    expect(scopes(parseEnv({ NODE_ENV: "test" }).SCOPES)).toEqual(declared);
    const example = /^# SCOPES=(.+)$/m.exec(read(".env.example"));
    expect(example && scopes(example[1])).toEqual(declared);
    expect(read("app/shopify.server.ts")).toContain('scopes: config.SCOPES.split(",")');
  });
});
