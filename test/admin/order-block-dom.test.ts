// @vitest-environment happy-dom
// The order page block (extensions/order-sync-block) rendered in a DOM against the real backend route over HTTP
// (the app's build), with admin session tokens signed like Shopify's: loading, unknown, empty, paused, error,
// a failed import's Retry now reaching the service once, and the French and German texts.
import { readFileSync } from "node:fs";
import { h as element, render, type ComponentType } from "preact";
import { fetch as nodeFetch } from "undici";
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import type { GrantStore } from "~/service/client.server";
import { recordSyncDelivery } from "~/sync/intake-batcher.server";
import { drainJobs, type SyncDeps } from "~/sync/job-runner.server";
import { withHarness } from "../helpers/harness";
import { mintSessionToken, TEST_API_SECRET, TEST_SHOP } from "../helpers/shopify";
import { emulatorState, injectFault, resetEmulator } from "../helpers/emulator";
import { clearSyncTables, connectCustomer, importCounts, newId, shopifyOrder, syncDeps } from "../sync/support";
import { strictShopify } from "../../dev/ui-extensions/strict-api";
import { targetApi } from "../../dev/ui-extensions/target-api";

// The page's own requests (the block's relative URLs) go through the DOM's fetch, as in the admin; the test's
// helpers (emulator state, faults) speak plain HTTP with Node's, outside the page's same-origin rules.
beforeAll(() => {
  const pageFetch = window.fetch.bind(window);
  globalThis.fetch = ((input: unknown, init?: RequestInit) =>
    typeof input === "string" && input.startsWith("/")
      ? pageFetch(input, init)
      : nodeFetch(input as string, init as never)) as typeof fetch;
});
const h = withHarness({ app: {}, emulator: "sync" });
// The extension's own module, as Shopify bundles it (type-checked against the admin block's API by `npm run lint`).
const MODULE = "../../extensions/order-sync-block/src/OrderSyncBlock.tsx";
let OrderSyncBlock: ComponentType;
beforeAll(async () => {
  ({ OrderSyncBlock } = (await import(/* @vite-ignore */ MODULE)) as { OrderSyncBlock: ComponentType });
});
const mount = () => render(element(OrderSyncBlock, null), root());
const CUSTOMER = "7000000001";
type Locale = "en" | "fr" | "de";

let stores: Map<string, GrantStore>;
let deps: SyncDeps;

/** Shopify's translate: dotted keys, {{name}} placeholders, from the extension's own locale files. */
function translator(locale: Locale) {
  const file = locale === "en" ? "en.default.json" : `${locale}.json`;
  const messages = JSON.parse(readFileSync(`extensions/order-sync-block/locales/${file}`, "utf8"));
  return (key: string, options: Record<string, unknown> = {}) => {
    const value = key.split(".").reduce((o, k) => (o && typeof o === "object" ? o[k] : undefined), messages);
    if (typeof value !== "string") throw new Error(`missing translation ${locale}:${key}`);
    return value.replace(/\{\{(\w+)\}\}/g, (_, name: string) => String(options[name] ?? ""));
  };
}

// What Shopify's types give the block's target (an admin block has no toast API); anything else used is a violation.
const API = targetApi("admin.order-details.block.render", "2026-07");
const violations: string[] = [];
afterEach(() => expect(violations.splice(0)).toEqual([]));

/** The `shopify` global the admin gives the block target, for one order, exactly as Shopify's types give it. */
function installShopify(orderId: string | number, options: { locale?: Locale; token?: () => Promise<string> } = {}) {
  const locale = options.locale ?? "en";
  const implementation = {
    data: { selected: [{ id: `gid://shopify/Order/${orderId}` }] },
    auth: { idToken: options.token ?? (() => mintSessionToken()) },
    i18n: {
      translate: translator(locale),
      formatDate: (date: Date, opts: Intl.DateTimeFormatOptions) => new Intl.DateTimeFormat(locale, opts).format(date),
    },
  };
  (globalThis as unknown as { shopify: unknown }).shopify = strictShopify(
    API,
    implementation,
    (message) => void violations.push(message),
  );
}

const root = () => document.body;
const text = () => root().textContent ?? "";
const buttons = (label: string) =>
  [...root().querySelectorAll("s-button")].filter((b) => b.textContent === label) as HTMLElement[];
const waitForText = (expected: string | RegExp) =>
  vi.waitFor(() => expect(text()).toMatch(expected), { timeout: 15_000, interval: 25 });

beforeEach(async () => {
  (window as unknown as { happyDOM: { setURL(url: string): void } }).happyDOM.setURL(`${h.app.url}/admin/orders`);
  await clearSyncTables(h.db.prisma);
  await resetEmulator(h.emulator);
  stores = new Map();
  deps = syncDeps(h.db.prisma, h.emulator, stores);
  await connectCustomer(h.db.prisma, h.emulator, stores, CUSTOMER);
});
afterEach(() => render(null, root()));

const deliver = (payload: unknown) =>
  recordSyncDelivery(h.db.prisma, { shop: TEST_SHOP, topic: "ORDERS_CREATE", eventId: `evt-${newId()}`, payload });

async function failedOrder() {
  const order = shopifyOrder();
  await injectFault(h.emulator, {
    path: "/api/v1/orders",
    status: 422,
    body: { error: "invalid_payload", message: "lines[0].title: too long" },
  });
  await deliver(order);
  await drainJobs(deps);
  return order;
}

describe("order page block", () => {
  it("shows loading, then a failed import with its reason and workspace; Retry now reaches the service once", async () => {
    const order = await failedOrder();
    installShopify(order.id);
    mount();
    expect(root().querySelector("s-spinner")).not.toBeNull();
    expect(text()).toContain("Loading the sync status");

    await waitForText("Order import");
    expect(text()).toContain("Failed");
    expect(text()).toMatch(/lines\[0\]\.title: too long/);
    expect(text()).toContain("Workspace: ws-acme"); // where it goes once it is accepted
    const link = root().querySelector("s-link")!;
    expect(link.getAttribute("href") ?? (link as unknown as { href: string }).href).toMatch(/^app:\/app\/log\/[\w-]+$/);

    // Two quick clicks are one retry: the button is busy until the answer.
    const [retry] = buttons("Retry now");
    retry.click();
    retry.click();
    await vi.waitFor(
      () =>
        expect(
          [...root().querySelectorAll("[data-outcome]")].map((b) => [b.getAttribute("data-outcome"), b.textContent]),
        ).toEqual([["success", "Queued again."]]),
      { timeout: 15_000 },
    );
    await drainJobs(deps);
    expect(importCounts(await emulatorState(h.emulator), "/api/v1/orders").get(String(order.id))).toBe(1);

    render(null, root());
    mount();
    await waitForText("Imported");
    expect(text()).toContain("Workspace: ws-acme");
    expect(buttons("Retry now")).toHaveLength(0);
  });

  it("says nothing was sent for an order it does not know (another shop's, or not seen yet)", async () => {
    installShopify(newId());
    mount();
    await waitForText("Nothing has been sent for this order yet.");
  });

  it("says the customer has no workspace connected, and that the sync is paused", async () => {
    const order = shopifyOrder({ customer: { id: 7_000_000_999 } });
    await deliver(order);
    await drainJobs(deps);
    await h.db.prisma.shopSettings.create({ data: { shop: TEST_SHOP, syncPaused: true } });
    installShopify(order.id);
    mount();
    await waitForText("This order's customer has no workspace connected");
    expect(text()).toContain("Sync is paused for this store");
  });

  it("shows an error when the backend refuses, and loads on Try again", async () => {
    const order = await failedOrder();
    let forged = true;
    installShopify(order.id, {
      token: () => (forged ? mintSessionToken(TEST_SHOP, { secret: `${TEST_API_SECRET}-wrong` }) : mintSessionToken()),
    });
    mount();
    await waitForText("The sync status could not be loaded.");
    forged = false;
    buttons("Try again")[0].click();
    await waitForText("Order import");
  });

  it("speaks French and German", async () => {
    const order = await failedOrder();
    installShopify(order.id, { locale: "fr" });
    mount();
    await waitForText("Import de la commande");
    expect(text()).toContain("Échec");
    expect(buttons("Réessayer maintenant")).toHaveLength(1);
    render(null, root());
    installShopify(order.id, { locale: "de" });
    mount();
    await waitForText("Bestellimport");
    expect(text()).toContain("Fehlgeschlagen");
    expect(buttons("Als erledigt markieren")).toHaveLength(1);
  });
});
