// What the Continue cart script does with the page and the answer it gets, in headless Chromium on the storefront
// stand-in (the real block, snippet and asset): it navigates only to a claim URL on the service origin the app
// names, over https (http only on a loopback host: the local demo); anything else gets the block's plain-words
// error and the shopper stays on the cart. It acts only on its own block's form: another form[data-continue-cart]
// on the page is left to the browser. And the server's side of the same rule: a claim URL the service answers on
// another origin is never handed to the storefront.
import { randomUUID } from "node:crypto";
import { setupServer } from "msw/node";
import type { Page, Request } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { demoCatalog } from "../../dev/admin-api/demo";
import { adminApiHandlers } from "../../dev/admin-api/handlers";
import { saveSettings } from "~/connections/settings-store.server";
import { newContext } from "../helpers/browser";
import { emulatorSettings } from "../helpers/emulator-oauth";
import { withHarness } from "../helpers/harness";
import { proxyUrl, TEST_SHOP } from "../helpers/shopify";
import { routeStorefront } from "../helpers/storefront";

const catalog = demoCatalog();
const MUG = "4600000001";
const ERROR = "Your cart could not be continued. It is unchanged; try again later.";
const SERVICE = "https://service.example";

const mock = setupServer(...adminApiHandlers(catalog, TEST_SHOP));
beforeAll(() => mock.listen({ onUnhandledRequest: "bypass" }));
afterAll(() => mock.close());
const h = withHarness({ app: {}, emulator: "oauth", browser: true });

beforeAll(async () => {
  expect((await saveSettings(h.db.prisma, TEST_SHOP, emulatorSettings(h.emulator.url))).ok).toBe(true);
}, 60_000);

/** The cart page with one line; the app proxy's answer to the script replaced by `answer`; every request noted. */
async function cartPage(answer: Record<string, unknown>) {
  const context = await newContext(h.browser);
  await routeStorefront(context, {
    appUrl: h.app.url,
    customerId: null,
    cart: { state: { token: `tok-${randomUUID()}`, items: [{ variant_id: MUG, quantity: 1 }] }, catalog },
  });
  const page = await context.newPage();
  const requests: Request[] = [];
  page.on("request", (r) => requests.push(r));
  await page.route(`https://${TEST_SHOP}/apps/workspace/cart`, (route) =>
    route.fulfill({ contentType: "application/json", body: JSON.stringify(answer) }),
  );
  for (const origin of [SERVICE, "http://service.example", "https://evil.example"]) {
    await page.route(`${origin}/**`, (route) =>
      route.fulfill({ contentType: "text/html", body: `<h1 data-landed>${origin}</h1>` }),
    );
  }
  await page.goto(`https://${TEST_SHOP}/cart`);
  await page.waitForFunction(() => "__continueCart" in window);
  return { page, requests, close: () => context.close() };
}

const message = (page: Page) => page.locator("main .continue-cart__message");

describe("the Continue cart script follows only the service's claim URL", () => {
  it("an https claim URL on the service's origin is followed", async () => {
    const s = await cartPage({ ok: true, claim_url: `${SERVICE}/claim/1`, service_origin: SERVICE });
    try {
      await s.page.getByRole("button", { name: "Continue cart" }).click();
      await s.page.waitForURL(`${SERVICE}/claim/1`);
    } finally {
      await s.close();
    }
  });

  it.each([
    [
      "http on a public host",
      { claim_url: "http://service.example/claim/1", service_origin: "http://service.example" },
    ],
    ["another origin", { claim_url: "https://evil.example/claim/1", service_origin: SERVICE }],
    ["no service origin named", { claim_url: `${SERVICE}/claim/1` }],
    ["a javascript: address", { claim_url: "javascript:alert(1)", service_origin: SERVICE }],
    ["user info in the URL", { claim_url: "https://user@service.example/claim/1", service_origin: SERVICE }],
  ])("%s is refused with the block's own words; the shopper stays on the cart", async (_name, answer) => {
    const s = await cartPage({ ok: true, ...answer });
    try {
      await s.page.getByRole("button", { name: "Continue cart" }).click();
      await message(s.page).waitFor({ state: "visible" });
      expect(await message(s.page).textContent()).toBe(ERROR);
      expect(s.page.url()).toBe(`https://${TEST_SHOP}/cart`);
      expect(s.requests.filter((r) => r.isNavigationRequest() && !r.url().startsWith(`https://${TEST_SHOP}/`))).toEqual(
        [],
      );
      expect(await s.page.getByRole("button", { name: "Continue cart" }).isEnabled()).toBe(true);
    } finally {
      await s.close();
    }
  });
});

describe("the Continue cart script acts only on its own block's form", () => {
  it.each([
    [
      "outside any block, posting to the proxy",
      `<form data-continue-cart="x" action="/apps/workspace/cart" method="post"><button id="foreign">Go</button></form>`,
    ],
    [
      "in a look-alike block, posting elsewhere",
      `<div data-continue-cart-block="y"><form data-continue-cart="y" action="https://evil.example/steal" method="post"><button id="foreign">Go</button></form></div>`,
    ],
  ])("a form[data-continue-cart] %s is left to the browser (no cart read, no JSON post)", async (_name, html) => {
    const s = await cartPage({
      ok: true,
      claim_url: "https://evil.example/claim/1",
      service_origin: "https://evil.example",
    });
    try {
      await s.page.evaluate((markup) => document.querySelector("main")!.insertAdjacentHTML("beforeend", markup), html);
      const before = s.requests.length;
      await Promise.all([s.page.waitForEvent("request", (r) => r.isNavigationRequest()), s.page.click("#foreign")]);
      const after = s.requests.slice(before);
      expect(after.filter((r) => new URL(r.url()).pathname === "/cart.js")).toEqual([]);
      expect(after.filter((r) => (r.headers()["content-type"] ?? "").includes("application/json"))).toEqual([]);
      expect(after[0].isNavigationRequest()).toBe(true); // the browser's own form submission
    } finally {
      await s.close();
    }
  });
});

describe("the server hands the storefront only a claim URL on the service's origin", () => {
  const post = () =>
    fetch(proxyUrl(h.app.url, "/cart", { customerId: null }), {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify({ token: `tok-${randomUUID()}`, locale: "en", lines: [{ variant_id: MUG, quantity: 1 }] }),
    });

  it("names the service origin with the claim URL", async () => {
    const response = await post();
    expect(response.status).toBe(200);
    const body = (await response.json()) as { claim_url: string; service_origin: string };
    expect(body.service_origin).toBe(h.emulator.url);
    expect(body.claim_url.startsWith(`${h.emulator.url}/claim/`)).toBe(true);
  });

  it("refuses a claim URL the service answers on another origin (failed, plain words, nothing to follow)", async () => {
    // The same emulator reached as localhost: it answers claim URLs on 127.0.0.1, another origin.
    const other = h.emulator.url.replace("127.0.0.1", "localhost");
    expect(
      (
        await saveSettings(
          h.db.prisma,
          TEST_SHOP,
          emulatorSettings(h.emulator.url, { sandboxBaseUrl: other, baseUrl: other }),
        )
      ).ok,
    ).toBe(true);
    try {
      const response = await post();
      const body = (await response.json()) as Record<string, unknown>;
      expect(response.status, JSON.stringify(body)).toBe(502);
      expect(body).toMatchObject({ ok: false, code: "failed" });
      expect(JSON.stringify(body)).not.toContain("/claim/");
    } finally {
      expect((await saveSettings(h.db.prisma, TEST_SHOP, emulatorSettings(h.emulator.url))).ok).toBe(true);
    }
  });
});
