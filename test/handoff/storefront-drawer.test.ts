// The Continue cart app embed on the demo storefront (dev/storefront: the stand-in for Shopify, its theme with a
// cart drawer that behaves like Dawn's, the extension's real Liquid and assets), in headless Chromium, in front of
// the app's build, the Admin API stand-in and the emulator. What a shopper meets: no stray button on pages where
// there is nothing to continue; in the drawer, exactly one button however often the theme re-renders it, following
// the drawer's cart; and a click hands off the lines the drawer shows.
import type { Page } from "playwright-core";
import { beforeEach, describe, expect, it } from "vitest";
import { loadAppBlocks, renderAppBlock } from "../../dev/storefront/liquid";
import { withStorefrontStandIn } from "../helpers/storefront-stand-in";
import { newContext, screenshotPath } from "../helpers/browser";
import { resetEmulator } from "../helpers/emulator";

const { h, store: storeUrl } = withStorefrontStandIn();

beforeEach(() => resetEmulator(h.emulator));

/** A fresh shopper (own cookies, so an empty cart), with every console error and /cart.js request recorded. */
async function shopper() {
  const context = await newContext(h.browser);
  const page = await context.newPage();
  const errors: string[] = [];
  const cartReads: string[] = [];
  page.on("console", (m) => (m.type() === "error" ? errors.push(m.text()) : undefined));
  page.on("pageerror", (e) => errors.push(e.message));
  page.on("request", (r) => (new URL(r.url()).pathname === "/cart.js" ? cartReads.push(r.url()) : undefined));
  return { page, errors, cartReads, close: () => context.close() };
}

const visibleButtons = (page: Page) =>
  page
    .locator(".continue-cart__button")
    .evaluateAll(
      (els) => els.filter((el) => (el as HTMLElement).offsetParent !== null || el.getClientRects().length > 0).length,
    );

async function addToCart(page: Page, handle: string, expectedCount: number) {
  await page.goto(`${storeUrl()}/products/${handle}`);
  await page.click("[data-add-to-cart]");
  await page.locator("cart-drawer.active #CartDrawer").waitFor();
  await page.waitForFunction(
    (n) =>
      document.querySelector("#CartDrawer [data-cart-drawer-line]") &&
      document.querySelectorAll("#CartDrawer [data-cart-drawer-line]").length === n,
    expectedCount,
  );
}

/** Waits until the drawer shows `n` visible Continue cart buttons and stays so for a few frames. */
async function settledButtons(page: Page, n: number) {
  await page.waitForFunction(
    (n) =>
      [...document.querySelectorAll("cart-drawer .continue-cart__button")].filter(
        (el) => el.getClientRects().length > 0,
      ).length === n,
    n,
  );
  await page.evaluate(
    () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => requestAnimationFrame(r)))),
  );
  return visibleButtons(page);
}

describe("the Continue cart embed on the demo storefront", () => {
  it("shows no Continue cart control on the home, product and empty cart pages", async () => {
    const s = await shopper();
    try {
      for (const path of ["/", "/products/blue-mug", "/cart"]) {
        await s.page.goto(`${storeUrl()}${path}`);
        await s.page.waitForLoadState("load");
        // The embed's script has run (it loads on pages with a cart drawer) before we look.
        await s.page.waitForFunction(() => "__continueCart" in window);
        expect(await visibleButtons(s.page), path).toBe(0);
        expect(await s.page.getByRole("button", { name: "Continue cart" }).count(), path).toBe(0);
        if (path === "/") await s.page.screenshot({ path: screenshotPath("storefront-home-no-stray-button") });
      }
      expect(s.errors).toEqual([]);
    } finally {
      await s.close();
    }
  });

  it("after two add-to-cart re-renders and one removal the drawer has exactly one button, and a click hands off the drawer's lines", async () => {
    const s = await shopper();
    try {
      await addToCart(s.page, "blue-mug", 1);
      expect(await settledButtons(s.page, 1)).toBe(1);
      // A second product: Dawn's product form replaces #CartDrawer's inner HTML again.
      await s.page.goto(`${storeUrl()}/products/wool-beanie`);
      await s.page.fill('input[name="quantity"]', "2");
      await s.page.click("[data-add-to-cart]");
      await s.page.waitForFunction(() => document.querySelectorAll("#CartDrawer [data-cart-drawer-line]").length === 2);
      expect(await settledButtons(s.page, 1)).toBe(1);
      await s.page.click("[data-product-form] [data-add-to-cart]"); // and once more: two re-renders on one page
      await s.page.waitForFunction(() => document.querySelector("[data-cart-count]")?.textContent?.trim() === "5");
      expect(await settledButtons(s.page, 1)).toBe(1);
      // The one button sits in the outer footer only, although the inner .cart-drawer__footer matches too.
      expect(await s.page.locator(".drawer__footer > [data-continue-cart-copy]").count()).toBe(1);
      expect(await s.page.locator(".cart-drawer__footer [data-continue-cart]").count()).toBe(0);

      // Remove the mug: the drawer's .drawer__inner is swapped (Dawn's cart-drawer-items).
      await s.page.click('[data-cart-drawer-line="4600000001"] [data-cart-remove]');
      await s.page.waitForFunction(() => document.querySelectorAll("#CartDrawer [data-cart-drawer-line]").length === 1);
      expect(await settledButtons(s.page, 1)).toBe(1);
      await s.page.screenshot({ path: screenshotPath("storefront-drawer-one-button") });
      expect(s.errors).toEqual([]);

      await s.page.locator("cart-drawer .continue-cart__button").click();
      await s.page.waitForURL(`${h.emulator.url}/claim/**`, { timeout: 10_000 }).catch(async (e: unknown) => {
        throw new Error(
          `${String(e)}; message: ${await s.page.locator("cart-drawer .continue-cart__message").textContent()}`,
        );
      });
      const rows = await s.page
        .locator("table tbody tr")
        .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent?.trim())));
      expect(rows).toEqual([["Wool beanie", "4", "24.00 EUR"]]);
    } finally {
      await s.close();
    }
  }, 90_000);

  it("loads nothing on a page without a cart drawer, and its script and stylesheet on a page with one", async () => {
    const embed = loadAppBlocks().find((b) => b.name === "continue-cart-embed")!;
    const html = await renderAppBlock(
      embed,
      {
        cart: { item_count: 1, items: [] },
        routes: { root_url: "/", cart_url: "/cart" },
        request: { locale: { iso_code: "en" } },
      },
      "embed-1",
    );
    const s = await shopper();
    const assets: string[] = [];
    s.page.on("request", (r) =>
      r.url().includes("/cdn/extensions/") ? assets.push(new URL(r.url()).pathname) : undefined,
    );
    await s.page.route(`${storeUrl()}/test-page/**`, (route) =>
      route.fulfill({
        contentType: "text/html",
        body: route.request().url().endsWith("with-drawer")
          ? `<!doctype html><body><cart-drawer><div class="drawer__footer"></div></cart-drawer>${html}</body>`
          : `<!doctype html><body><main>A page with no cart</main>${html}</body>`,
      }),
    );
    try {
      await s.page.goto(`${storeUrl()}/test-page/plain`);
      await s.page.waitForLoadState("networkidle");
      expect(assets).toEqual([]);
      expect(await s.page.evaluate(() => "__continueCart" in window)).toBe(false);
      expect(await visibleButtons(s.page)).toBe(0);
      await s.page.goto(`${storeUrl()}/test-page/with-drawer`);
      await s.page.waitForFunction(() => "__continueCart" in window);
      expect(assets.sort()).toEqual([
        "/cdn/extensions/storefront/assets/continue-cart.css",
        "/cdn/extensions/storefront/assets/continue-cart.js",
      ]);
      expect(await settledButtons(s.page, 1)).toBe(1);
      expect(s.errors).toEqual([]);
    } finally {
      await s.close();
    }
  });

  it("hides the button when the last line is removed, and watches only the drawer (changes elsewhere cost nothing)", async () => {
    const s = await shopper();
    try {
      await addToCart(s.page, "enamel-pin", 1);
      expect(await settledButtons(s.page, 1)).toBe(1);
      const reads = s.cartReads.length;
      // A busy page: hundreds of DOM changes outside the drawer. The embed's observer is not on them.
      await s.page.evaluate(async () => {
        for (let i = 0; i < 300; i++) document.querySelector("main")!.appendChild(document.createElement("span"));
        await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
      });
      expect(s.cartReads.length).toBe(reads);
      await s.page.click("[data-cart-remove]");
      await s.page.waitForFunction(() => document.querySelector("cart-drawer")?.classList.contains("is-empty"));
      expect(await settledButtons(s.page, 0)).toBe(0);
      expect(await s.page.locator("cart-drawer [data-continue-cart-copy]").count()).toBe(1); // there, hidden
      expect(s.errors).toEqual([]);
    } finally {
      await s.close();
    }
  }, 60_000);
});
