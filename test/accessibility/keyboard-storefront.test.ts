// Shoppers with a keyboard only, in headless Chromium on the storefront stand-in (dev/storefront) in front of the app's
// build and the emulator: Continue cart from the cart drawer, and Connect workspace from the account page through the
// service's consent and back. Every stop on the way has visible focus and comes in document order
// (test/helpers/keyboard.ts); nothing is clicked.
import { expect, it } from "vitest";
import { DEMO_CUSTOMERS } from "../../dev/demo-store";
import { newContext } from "../helpers/browser";
import { resetEmulator } from "../helpers/emulator";
import { TEST_SHOP } from "../helpers/shopify";
import { startWalk, tabTo } from "../helpers/keyboard";
import { withStorefrontStandIn } from "../helpers/storefront-stand-in";

const { h, store } = withStorefrontStandIn();

it("Continue cart from the drawer: Tab to Add to cart, Enter, Tab into the drawer to Continue cart, Enter, on the claim page", async () => {
  await resetEmulator(h.emulator);
  const context = await newContext(h.browser);
  const page = await context.newPage();
  await page.setViewportSize({ width: 1280, height: 800 });
  try {
    await page.goto(`${store()}/products/blue-mug`);
    await page.waitForFunction(() => "__continueCart" in window);
    await tabTo(page, page.getByRole("button", { name: "Add to cart" }));
    await page.keyboard.press("Enter");
    const button = page.locator("cart-drawer").getByRole("button", { name: "Continue cart" });
    await button.waitFor();
    const stops = await tabTo(page, button);
    expect(stops.at(-1)!.label).toBe('button[submit] "Continue cart"');
    await page.keyboard.press("Enter");
    await page.waitForURL(`${h.emulator.url}/claim/**`, { timeout: 15_000 });
    expect(await page.locator("table tbody tr").count()).toBe(1);
  } finally {
    await context.close();
  }
}, 90_000);

it("Connect workspace: from the account page's block to the connect page, through the consent, back connected", async () => {
  const context = await newContext(h.browser);
  const [ada] = DEMO_CUSTOMERS;
  await context.addCookies([{ name: "customer_id", value: ada.id, url: store() }]);
  // The store's own domain is the stand-in here. Chromium does not route a redirect's follow-up to a name it cannot
  // resolve, so the consent's answer is followed here: the service's redirect to the app's callback, and the
  // callback's redirect to https://<shop>/…, which goes to the stand-in instead.
  await context.route(`${h.emulator.url}/oauth/authorize`, async (route) => {
    if (route.request().method() !== "POST") return route.continue();
    const consent = await route.fetch({ maxRedirects: 0 });
    const callback = await route.fetch({
      url: consent.headers().location,
      method: "GET",
      postData: undefined,
      maxRedirects: 0,
    });
    const back = new URL(callback.headers().location);
    expect(back.origin).toBe(`https://${TEST_SHOP}`);
    await route.fulfill({ status: 302, headers: { location: `${store()}${back.pathname}${back.search}` } });
  });
  const page = await context.newPage();
  await page.setViewportSize({ width: 1280, height: 800 });
  try {
    await page.goto(`${store()}/account`);
    await tabTo(page, page.locator(".connect-workspace-block").getByRole("link", { name: "Connect workspace" }));
    await page.keyboard.press("Enter");
    await page.waitForURL(`${store()}/apps/workspace/connect`);
    await page.locator("[data-status=not_connected]").waitFor();
    await startWalk(page);
    await tabTo(page, page.getByRole("button", { name: "Connect workspace" }));
    await page.keyboard.press("Enter");
    // The service's consent page (the emulator's): Tab to Approve, Enter.
    await page.waitForURL(`${h.emulator.url}/oauth/authorize**`);
    for (
      let i = 0;
      i < 20 && !(await page.getByRole("button", { name: "Approve" }).evaluate((el) => el === document.activeElement));
      i++
    )
      await page.keyboard.press("Tab");
    await page.keyboard.press("Enter");
    await page.waitForURL(`${store()}/apps/workspace/connect?result=connected`, { timeout: 15_000 });
    await expect.poll(() => page.getByRole("status").textContent()).toBe("Your workspace is connected.");
    expect(await page.locator("[data-status=connected]").textContent()).toContain("Connected to workspace");
  } finally {
    await context.close();
  }
}, 90_000);
