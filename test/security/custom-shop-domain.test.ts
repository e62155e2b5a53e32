// SHOP_CUSTOM_DOMAIN: a shop at the custom domain opens the embedded admin like a *.myshopify.com one; a shop at any
// other domain is refused. Over HTTP against the production build, with Shopify's own session-token check.
import { describe, expect, it } from "vitest";
import { parseEnv } from "~/env.server";
import { withHarness } from "../helpers/harness";
import { CHROME_USER_AGENT } from "../helpers/browser";
import { embeddedUrl, TEST_SHOP } from "../helpers/shopify";

const CUSTOM = "acme.shops.example.net";
const ELSEWHERE = "acme.shops.example.org";

describe("SHOP_CUSTOM_DOMAIN", () => {
  const h = withHarness({
    shops: [TEST_SHOP, CUSTOM, ELSEWHERE],
    app: { env: { SHOP_CUSTOM_DOMAIN: "shops.example.net" } },
  });
  const open = async (shop: string) =>
    fetch(await embeddedUrl(h.app.url, "/app", shop), {
      headers: { "User-Agent": CHROME_USER_AGENT },
      redirect: "manual",
    });

  it("accepts a shop at the custom domain and at myshopify.com, and refuses one at another domain", async () => {
    const custom = await open(CUSTOM);
    expect(custom.status).toBe(200);
    expect(custom.headers.get("content-security-policy")).toMatch(
      /^frame-ancestors https:\/\/acme\.shops\.example\.net /,
    );
    expect((await open(TEST_SHOP)).status).toBe(200);
    // Another domain: Shopify's library sends the request to the login page instead of the app.
    const elsewhere = await open(ELSEWHERE);
    expect(elsewhere.status).toBe(302);
    expect(new URL(elsewhere.headers.get("location")!, h.app.url).pathname).toBe("/auth/login");
  });

  it("must be a bare domain", () => {
    const base = { NODE_ENV: "test" };
    expect(parseEnv({ ...base, SHOP_CUSTOM_DOMAIN: "Shops.Example.net" }).SHOP_CUSTOM_DOMAIN).toBe("shops.example.net");
    for (const bad of ["https://shops.example.net", "shops.example.net/admin", "*.example.net", "localhost"]) {
      expect(() => parseEnv({ ...base, SHOP_CUSTOM_DOMAIN: bad }), bad).toThrowError(
        /SHOP_CUSTOM_DOMAIN: must be a bare domain/,
      );
    }
  });
});
