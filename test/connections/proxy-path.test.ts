// A store whose merchant changed the app proxy's path (Shopify lets them pick the prefix and subpath per store):
// here /tools/team-space instead of /apps/workspace. The storefront stand-in (dev/storefront/server.ts) runs with
// that path, signs it as Shopify's path_prefix and sets the theme blocks' "App proxy path" setting to it, as the
// merchant would. In Chromium: the account page's Connect workspace block → the connect page → the service's
// consent → the OAuth return to the store's completion step → the connect page, all on the changed path; and the
// cart page's Continue cart block → the claim page. Over HTTP: a path_prefix not of Shopify's shape is refused.
import { describe, expect, it } from "vitest";
import { DEMO_CUSTOMERS } from "../../dev/demo-store";
import { withStorefrontStandIn } from "../helpers/storefront-stand-in";
import { newContext, screenshotPath } from "../helpers/browser";
import { proxyUrl, TEST_SHOP } from "../helpers/shopify";

const PROXY_PATH = "/tools/team-space";
const ADA = DEMO_CUSTOMERS[0];

const { h, store: storeUrl } = withStorefrontStandIn({ proxyPrefix: PROXY_PATH });

/** A shopper logged in as Ada; the store's own domain (where the app's OAuth return goes) is the stand-in. */
async function ada() {
  const context = await newContext(h.browser);
  await context.addCookies([{ name: "customer_id", value: ADA.id, url: storeUrl() }]);
  await context.route(`https://${TEST_SHOP}/**`, (route) => {
    const url = new URL(route.request().url());
    return route.fulfill({ status: 302, headers: { location: `${storeUrl()}${url.pathname}${url.search}` } });
  });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  return { page, errors, close: () => context.close() };
}

describe(`a store whose app proxy path is ${PROXY_PATH}`, () => {
  it("connect: the account block links to the changed path, and the OAuth return comes back to it", async () => {
    const s = await ada();
    try {
      await s.page.goto(`${storeUrl()}/account`);
      const link = s.page.locator(".connect-workspace-block__button");
      expect(await link.getAttribute("href")).toBe(`${PROXY_PATH}/connect`);
      await link.click();
      await s.page.waitForURL(`${storeUrl()}${PROXY_PATH}/connect`);
      // The page's own form posts to the changed path too.
      expect(await s.page.locator("form:has([data-action=connect])").getAttribute("action")).toBe(
        `${PROXY_PATH}/connect/`,
      );
      await s.page.click("[data-action=connect]");
      await s.page.waitForURL(`${h.emulator.url}/oauth/authorize**`);
      await s.page.click("button[value=approve]");
      await s.page.waitForURL(`${storeUrl()}${PROXY_PATH}/connect?result=connected`);
      await s.page.waitForSelector("[data-result=connected]");
      expect(await s.page.textContent("[data-status=connected]")).toContain("ws-acme");
      await s.page.screenshot({ path: screenshotPath("proxy-path-connected"), fullPage: true });
      expect(s.errors).toEqual([]);
    } finally {
      await s.close();
    }
    const state = await h.db.prisma.oAuthState.findFirstOrThrow({ where: { customerId: ADA.id } });
    expect(state.returnTo).toBe(`${PROXY_PATH}/connect`);
    expect(
      await h.db.prisma.customerGrant.count({ where: { shop: TEST_SHOP, customerId: ADA.id, status: "active" } }),
    ).toBe(1);
  }, 90_000);

  it("Continue cart: the cart page's block posts to the changed path and lands on the claim page", async () => {
    const s = await ada();
    try {
      await s.page.goto(`${storeUrl()}/products/blue-mug`);
      await s.page.click("[data-add-to-cart]");
      await s.page.waitForFunction(() => document.querySelector("[data-cart-count]")?.textContent?.trim() === "1");
      await s.page.goto(`${storeUrl()}/cart`);
      const form = s.page.locator("main form[data-continue-cart]");
      expect(await form.getAttribute("action")).toBe(`${PROXY_PATH}/cart`);
      await form.getByRole("button", { name: "Continue cart" }).click();
      await s.page.waitForURL(`${h.emulator.url}/claim/**`, { timeout: 10_000 }).catch(async (e: unknown) => {
        throw new Error(`${String(e)}; message: ${await form.locator(".continue-cart__message").textContent()}`);
      });
      const rows = await s.page
        .locator("table tbody tr")
        .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent?.trim())));
      expect(rows).toEqual([["Blue mug", "1", "12.50 EUR"]]);
      expect(s.errors).toEqual([]);
    } finally {
      await s.close();
    }
  }, 60_000);

  it("the old path is not the app's on this store", async () => {
    const response = await fetch(`${storeUrl()}/apps/workspace/connect`, {
      headers: { cookie: `customer_id=${ADA.id}` },
      redirect: "manual",
    });
    expect(response.status).toBe(404);
  });
});

describe("Shopify's signed path_prefix", () => {
  const get = (path: string, prefix: string) =>
    fetch(proxyUrl(h.app.url, path, { customerId: ADA.id, prefix }), { redirect: "manual" });

  it("is used for the connect page's links when it has Shopify's shape", async () => {
    for (const prefix of ["/apps/workspace", "/a/x_1", "/community/team", "/tools/team-space"]) {
      const response = await get("/connect", prefix);
      expect(response.status, prefix).toBe(200);
      expect(await response.text(), prefix).toContain(`action="${prefix}/connect/"`);
    }
  });

  it.each([
    "",
    "/apps",
    "/apps/",
    "/other/workspace",
    "/apps/x/y",
    "/apps/..",
    "//evil.example/x",
    "/apps/a b",
    "https://evil.example/apps/x",
    "/apps/x?y=1",
  ])("is refused (400) when it is %j, on every proxy route", async (prefix) => {
    for (const path of ["", "/connect", "/connect/complete"]) expect((await get(path, prefix)).status, path).toBe(400);
    const cart = await fetch(proxyUrl(h.app.url, "/cart", { customerId: null, prefix }), {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify({ token: "t", lines: [{ variant_id: "1", quantity: 1 }] }),
    });
    expect(cart.status).toBe(400);
  });
});
