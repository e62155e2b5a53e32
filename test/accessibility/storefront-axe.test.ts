// WCAG 2.2 AA where shoppers meet the app: axe-core (test/helpers/axe.ts) in headless Chromium over the storefront
// stand-in (dev/storefront: a Dawn-like theme carrying the app's real theme blocks and app embed) in front of the
// app's build and the emulator, at 1280 px and 360 px. The Continue cart embed in the open drawer and the block on
// the cart page, each also after a handoff failed; the Connect workspace block; and every page of the app proxy:
// the connect page in each state and result (errors included), the sign-in prompt, the completion step signed out,
// the refused form; and the OAuth callback's own error page on the app's domain.
import type { Browser, BrowserContext, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { saveSettings } from "~/connections/settings-store.server";
import { DEMO_CUSTOMERS } from "../../dev/demo-store";
import { expectAccessible } from "../helpers/axe";
import { newContext } from "../helpers/browser";
import { injectFault } from "../helpers/emulator";
import { emulatorSettings } from "../helpers/emulator-oauth";
import { TEST_SHOP } from "../helpers/shopify";
import { withStorefrontStandIn } from "../helpers/storefront-stand-in";

const { h, store } = withStorefrontStandIn();
const WIDTHS = [1280, 360] as const;
const [ADA, GRACE, KATHERINE] = DEMO_CUSTOMERS;

/** A shopper's own browser (own cart), signed in as `customerId` when given. */
async function shopper(
  browser: Browser,
  width: number,
  customerId?: string,
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await newContext(browser);
  if (customerId) await context.addCookies([{ name: "customer_id", value: customerId, url: store() }]);
  const page = await context.newPage();
  await page.setViewportSize({ width, height: 800 });
  return { context, page };
}

async function addToCart(page: Page, handle: string) {
  await page.goto(`${store()}/products/${handle}`);
  await page.click("[data-add-to-cart]");
  await page.locator("cart-drawer.active #CartDrawer [data-cart-drawer-line]").first().waitFor();
  await page.locator("cart-drawer .continue-cart__button").waitFor();
}

describe("Continue cart on the storefront", () => {
  it("the storefront with the embed, the drawer with the button, the cart page with the block; each after a failed handoff", async () => {
    for (const width of WIDTHS) {
      const { context, page } = await shopper(h.browser, width);
      await page.goto(store());
      await page.waitForFunction(() => "__continueCart" in window);
      await expectAccessible(page, `storefront home with the app embed at ${width} px`);
      await addToCart(page, "blue-mug");
      await expectAccessible(page, `cart drawer with Continue cart at ${width} px`);
      // The service refuses the handoff: the block says so in the drawer.
      await injectFault(h.emulator, { path: "/api/v1/cart-handoffs", status: 500, times: 10 });
      await page.locator("cart-drawer .continue-cart__button").click();
      await page.locator("cart-drawer .continue-cart__message:not([hidden])").waitFor({ timeout: 20_000 });
      await expectAccessible(page, `cart drawer after a failed handoff at ${width} px`);
      await page.goto(`${store()}/cart`);
      await page.locator(".continue-cart-block .continue-cart__button").waitFor();
      await expectAccessible(page, `cart page with Continue cart at ${width} px`);
      await page.locator(".continue-cart-block .continue-cart__button").click();
      await page.locator(".continue-cart-block .continue-cart__message:not([hidden])").waitFor({ timeout: 20_000 });
      await expectAccessible(page, `cart page after a failed handoff at ${width} px`);
      await context.close();
    }
  }, 120_000);
});

describe("Connect workspace on the storefront", () => {
  const connect = (query = "") => `${store()}/apps/workspace/connect${query}`;

  /** Opens `url` as `customerId` (signed out without one) at each width and checks it once `ready` shows. */
  async function check(url: string, ready: string, what: string, customerId?: string) {
    for (const width of WIDTHS) {
      const { context, page } = await shopper(h.browser, width, customerId);
      try {
        await page.goto(url);
        await page.locator(ready).first().waitFor();
        await expectAccessible(page, `${what} at ${width} px`);
      } finally {
        await context.close();
      }
    }
  }

  it("the block on the account page, the proxy's own page", async () => {
    await check(
      `${store()}/account`,
      ".connect-workspace-block",
      "account page with the Connect workspace block",
      ADA.id,
    );
    await check(`${store()}/apps/workspace`, "text=Connect your workspace", "the app proxy's index page", ADA.id);
  }, 60_000);

  it("signed out: the sign-in prompt, on the connect page and at the completion step", async () => {
    await check(connect(), "[data-action=sign-in]", "connect page signed out");
    await check(
      `${store()}/apps/workspace/connect/complete?state=s&proof=p`,
      "[data-action=sign-in]",
      "completion step signed out",
    );
  }, 60_000);

  it("signed in: not connected, connected, needing a reconnect, and every result the flow can end with", async () => {
    await check(connect(), "[data-status=not_connected]", "connect page, not connected", ADA.id);
    const grant = (customerId: string, status: "active" | "needs_reconnect") =>
      h.db.prisma.customerGrant.create({
        data: {
          shop: TEST_SHOP,
          customerId,
          workspaceId: "ws-acme",
          scopes: "orders:write shipments:write",
          accessTokenEnc: "unused",
          status,
        },
      });
    await grant(GRACE.id, "active");
    await grant(KATHERINE.id, "needs_reconnect");
    await check(connect("?result=connected"), "[data-result=connected]", "connect page, connected", GRACE.id);
    await check(connect(), "[data-status=needs_reconnect]", "connect page, needing a reconnect", KATHERINE.id);
    for (const result of [
      "denied",
      "expired",
      "already_used",
      "invalid_state",
      "failed",
      "wrong_customer",
      "not_configured",
    ]) {
      await check(connect(`?result=${result}`), `[data-result=${result}]`, `connect page, result "${result}"`, ADA.id);
    }
  }, 180_000);

  it("a refused form (its token is not this page's), and a store whose settings are missing", async () => {
    for (const width of WIDTHS) {
      const { context, page } = await shopper(h.browser, width, ADA.id);
      await page.goto(connect());
      await page.locator("[data-action=connect]").waitFor();
      const [response] = await Promise.all([
        page.waitForResponse((r) => r.request().method() === "POST"),
        page.evaluate(() => {
          const form = document.querySelector<HTMLButtonElement>("[data-action=connect]")!.form!;
          form.querySelector<HTMLInputElement>("input[type=hidden]")!.value = "not-the-token";
          form.submit();
        }),
      ]);
      expect(response.status()).toBe(403);
      await page.locator("[data-status=not_connected]").waitFor();
      await expectAccessible(page, `connect page after a refused form at ${width} px`);
      await context.close();
    }
    await h.db.prisma.shopSettings.delete({ where: { shop: TEST_SHOP } });
    try {
      await check(connect(), "[data-status=unavailable]", "connect page, no service settings", ADA.id);
    } finally {
      expect((await saveSettings(h.db.prisma, TEST_SHOP, emulatorSettings(h.emulator.url))).ok).toBe(true);
    }
  }, 120_000);

  it("the OAuth callback's error page on the app's domain", async () => {
    for (const width of WIDTHS) {
      const { context, page } = await shopper(h.browser, width);
      const response = await page.goto(`${h.app.url}/connect/callback?state=not-a-state&code=x`);
      expect(response?.status()).toBeGreaterThanOrEqual(400);
      await page.locator("[data-result=invalid_state]").waitFor();
      await expectAccessible(page, `OAuth callback error page at ${width} px`);
      await context.close();
    }
  }, 60_000);
});
