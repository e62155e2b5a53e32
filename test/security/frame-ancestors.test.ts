// Who may frame each page (Content-Security-Policy frame-ancestors, which Shopify requires): the embedded admin only
// inside its shop's admin; the login form and the service's OAuth return to the app never, by anyone.
import { describe, expect, it } from "vitest";
import { withHarness } from "../helpers/harness";
import { embeddedUrl, TEST_SHOP } from "../helpers/shopify";

const csp = (response: Response) => response.headers.get("content-security-policy");

describe("frame-ancestors", () => {
  const h = withHarness({ app: {} });

  it("the login form and the OAuth callback page may be framed by nobody", async () => {
    const login = await fetch(`${h.app.url}/auth/login`);
    expect(login.status).toBe(200);
    expect(csp(login)).toBe("frame-ancestors 'none';");
    // A shop that is not a shop: the form again, with its error, still never framed.
    const refused = await fetch(`${h.app.url}/auth/login?shop=not a shop`);
    expect(csp(refused)).toBe("frame-ancestors 'none';");

    const callback = await fetch(`${h.app.url}/connect/callback?code=c&state=unknown-state`);
    expect(callback.status).toBeGreaterThanOrEqual(400);
    expect(await callback.text()).toContain("Workspace connection");
    expect(csp(callback)).toBe("frame-ancestors 'none';");
    expect(callback.headers.get("cache-control")).toBe("no-store");
  });

  it("the embedded admin may be framed by its shop's admin only", async () => {
    const page = await fetch(await embeddedUrl(h.app.url, "/app"), {
      headers: { "User-Agent": "Mozilla/5.0 Chrome/131" },
    });
    expect(page.status).toBe(200);
    expect(csp(page)).toMatch(
      new RegExp(`^frame-ancestors https://${TEST_SHOP.replace(/\./g, "\\.")} https://admin\\.shopify\\.com`),
    );
  });
});
