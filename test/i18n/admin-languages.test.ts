// The admin in the merchant's language, in headless Chromium against the built app: every admin page opened with
// Shopify's `locale=fr` and `locale=de` shows no English sentence and says its language in <html lang>; a page
// reached by clicking the app's menu stays in that language (the page's own requests carry it); the sync log's
// filters, a record's page and the CSV export's header row in English, French and German.
//
// "No English" is checked two ways over every text a person meets (text, hidden text for screen readers, labels,
// placeholders, titles): none of English's own messages (app/locales/admin/en.json) appears, and none of a list of
// English-only words does. Data is left out where the page marks it (translate="no": the JSON sent to the service)
// and the seeded data is names, numbers and ids.
import { readFileSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import type { GrantStore } from "~/service/client.server";
import { drainJobs } from "~/sync/job-runner.server";
import { CHROME_USER_AGENT } from "../helpers/browser";
import { createDataRequestRow, createHandoffRow, openAdminPage, serveSetupGuideShopify } from "../helpers/admin-pages";
import { withHarness } from "../helpers/harness";
import { sendWebhook, TEST_SHOP } from "../helpers/shopify";
import { connectCustomer, settingsFor, shopifyOrder, syncDeps } from "../sync/support";
import { because, type ReasonDetails, type SyncReasonCode } from "~/sync/reasons";
import { INVALID_GRANT_REASON } from "~/service/client.server";
import { recordConnectionCheck } from "~/admin/home.server";
import { saveSettings } from "~/connections/settings-store.server";

type Catalog = Record<string, string | Record<string, string>>;
const read = (locale: string): Catalog => JSON.parse(readFileSync(`app/locales/admin/${locale}.json`, "utf8"));

serveSetupGuideShopify();

const h = withHarness({ app: {}, emulator: "sync", browser: true });

/** Words that are English and neither French nor German (so a French or German page never needs them). */
const ENGLISH_ONLY =
  /(?<!\p{L})(the|and|of|to|is|are|not|with|your|this|that|from|has|have|for|yet|been|nothing|here|there|which|shown|failed|waiting|imported|customers?|orders?|settings|search|save|next|previous)(?!\p{L})/iu;

/** English's messages as the literal pieces between their {variables}, where the other language words them otherwise. */
function englishPieces(locale: string): string[] {
  const en = read("en");
  const other = read(locale);
  const forms = (m: Catalog[string] | undefined) =>
    m === undefined ? [] : typeof m === "string" ? [m] : Object.values(m);
  const pieces = new Set<string>();
  for (const [key, message] of Object.entries(en)) {
    const translated = new Set(forms(other[key]));
    for (const form of forms(message)) {
      if (translated.has(form)) continue; // the same in both (Shopify Flow, ID {id})
      for (const piece of form.split(/\{\w+\}/)) if (piece.trim().split(/\s+/).length >= 3) pieces.add(piece.trim());
    }
  }
  return [...pieces];
}

/** Every text of the page a person meets, visible or for screen readers, data marked translate="no" left out. */
function pageTexts(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const texts: string[] = [document.title];
    const skip = (el: Element | null) => !!el?.closest("script, style, template, [translate=no]");
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (!skip(node.parentElement) && node.textContent?.trim()) texts.push(node.textContent.trim());
    }
    for (const el of document.body.querySelectorAll("[aria-label], [placeholder], [title], [alt]")) {
      if (skip(el)) continue;
      for (const name of ["aria-label", "placeholder", "title", "alt"]) {
        const value = el.getAttribute(name);
        if (value?.trim()) texts.push(value.trim());
      }
    }
    return texts;
  });
}

/** Names a merchant meets in English elsewhere too: the Flow trigger's title, as Shopify Flow lists it. */
const PROPER_NAMES = ["Order import needs attention"];

async function expectNoEnglish(page: Page, locale: string, what: string) {
  expect(await page.getAttribute("html", "lang"), `${what}: <html lang>`).toBe(locale);
  const texts = (await pageTexts(page)).map((text) => PROPER_NAMES.reduce((s, name) => s.replaceAll(name, ""), text));
  const all = texts.join("\n");
  const english = englishPieces(locale).filter((piece) => all.includes(piece));
  // Soft: one run names every page and every text still in English.
  expect.soft(english, `${what} (${locale}): English messages on the page`).toEqual([]);
  const words = texts.filter((text) => ENGLISH_ONLY.test(text));
  expect.soft(words, `${what} (${locale}): English words on the page`).toEqual([]);
}

const openAdmin = (path: string, locale: string) => openAdminPage(h.browser, h.app.url, path, { locale, idle: true });

const stores = new Map<string, GrantStore>();
const ids = { imported: "", notConnected: "", noCustomer: "", handoff: "", handoffFailed: "", handoffUnavailable: "" };

/** The service's own message, in English as the service words it: shown quoted (translate="no"), never as ours. */
const SERVICE_SAYS = "The field customer.email is not a valid address";
/** A record in each reason whose words need stored facts, as the worker writes them (because()). */
const REASONS: [string, "waiting" | "skipped" | "failed" | "pending", SyncReasonCode, ReasonDetails][] = [
  ["too_many_lines", "failed", "too_many_lines", { noun: "order", count: 612, max: 500 }],
  [
    "invalid_data",
    "failed",
    "invalid_data",
    { noun: "shipment", detail: "lines[0].sku: is required", fields: ["lines[0].sku"] },
  ],
  [
    "rejected",
    "failed",
    "rejected",
    {
      detail: "The data was not accepted: x",
      failure: { kind: "invalid_payload", status: 422, serviceMessage: SERVICE_SAYS },
    },
  ],
  [
    "retrying",
    "pending",
    "retrying",
    {
      detail: "The service had an internal problem (HTTP 503).",
      at: "05:14:00",
      attempts: 2,
      maxAttempts: 8,
      failure: { kind: "server_error", status: 503 },
    },
  ],
  [
    "attempts_exhausted",
    "failed",
    "attempts_exhausted",
    { attempts: 8, detail: "timeout", failure: { kind: "timeout" } },
  ],
  [
    "attempts_exhausted_internal",
    "failed",
    "attempts_exhausted",
    { attempts: 1, detail: "Internal error while processing (boom).", failure: { kind: "internal" } },
  ],
  [
    "reconnect_required",
    "waiting",
    "reconnect_required",
    {
      detail: "The customer's workspace connection must be reconnected.",
      failure: { kind: "reconnect_required", status: 401, serviceMessage: "Token revoked by the workspace owner" },
    },
  ],
  [
    "needs_reconnect",
    "waiting",
    "needs_reconnect",
    { detail: "the service no longer accepts the saved authorization", grantReason: "invalid_grant" },
  ],
  ["needs_reconnect_other", "waiting", "needs_reconnect", { detail: "Revoked from the service's console" }],
  [
    "order_not_imported",
    "skipped",
    "order_not_imported",
    {
      detail: "The order has 612 lines",
      order: { code: "too_many_lines", details: { noun: "order", count: 612, max: 500 } },
    },
  ],
];
const reasonIds = new Map<string, string>();

beforeAll(async () => {
  const deps = syncDeps(h.db.prisma, h.emulator, stores);
  await connectCustomer(h.db.prisma, h.emulator, stores, "7000000001");
  await h.db.prisma.customerGrant.update({
    where: { shop_customerId: { shop: TEST_SHOP, customerId: "7000000001" } },
    data: { customerName: "Ada Lovelace" },
  });
  // A customer whose grant the app marked for reconnecting: the Customers page words its reason by code.
  await connectCustomer(h.db.prisma, h.emulator, stores, "7000000002");
  await h.db.prisma.customerGrant.update({
    where: { shop_customerId: { shop: TEST_SHOP, customerId: "7000000002" } },
    data: { status: "needs_reconnect", statusReason: INVALID_GRANT_REASON },
  });
  // One whose reason is the service's own words (a revocation it reported): quoted after a label.
  await connectCustomer(h.db.prisma, h.emulator, stores, "7000000003");
  await h.db.prisma.customerGrant.update({
    where: { shop_customerId: { shop: TEST_SHOP, customerId: "7000000003" } },
    data: { status: "needs_reconnect", statusReason: "Access revoked by the workspace owner" },
  });
  const imported = shopifyOrder();
  const unconnected = shopifyOrder({ customer: { id: 7_000_000_099, email: "grace@example.com" } });
  const guest = shopifyOrder({ customer: null });
  for (const order of [imported, unconnected, guest])
    expect((await sendWebhook(h.app.url, "orders/create", order)).status).toBe(200);
  await drainJobs(deps);
  const idOf = async (order: { id: number }) =>
    (await h.db.prisma.syncRecord.findFirstOrThrow({ where: { shop: TEST_SHOP, externalId: String(order.id) } })).id;
  ids.imported = await idOf(imported);
  ids.notConnected = await idOf(unconnected);
  ids.noCustomer = await idOf(guest);
  ids.handoff = (await createHandoffRow(h.db.prisma, "EUR")).id;
  // Failed cart handoffs, with the words the click stored: the service's failure, and items no longer for sale.
  const failedHandoff = (externalCartId: string, reasonCode: string, reason: string) =>
    h.db.prisma.cartHandoff.create({
      data: {
        shop: TEST_SHOP,
        customerId: "7000000001",
        cartTokenHash: `h-${externalCartId}`,
        contentHash: "c",
        externalCartId,
        idempotencyKey: `k-${externalCartId}`,
        lineCount: 2,
        lines: [],
        state: "failed",
        reasonCode,
        reason,
        attempts: 1,
        totalMinor: 1200n,
        currency: "EUR",
      },
    });
  ids.handoffFailed = (
    await failedHandoff(
      "cart-500",
      "server_error",
      "The service had an internal problem (HTTP 500). Trying again later usually helps.",
    )
  ).id;
  ids.handoffUnavailable = (await failedHandoff("cart-gone", "unavailable", "No longer available: Blue mug.")).id;
  await h.db.prisma.backfill.create({
    data: { shop: TEST_SHOP, customerId: "7000000001", days: 60, total: 100, queued: 40, status: "running" },
  });
  // A failed bulk backfill (Shopify's own error code shown as Shopify spells it) and a paged one retrying.
  await h.db.prisma.backfill.createMany({
    data: [
      {
        shop: TEST_SHOP,
        customerId: "7000000001",
        days: 30,
        status: "failed",
        path: "bulk",
        error: "Shopify's bulk operation failed (access_denied).",
        errorDetails: { code: "bulk_failed", shopifyCode: "ACCESS_DENIED" },
      },
      {
        shop: TEST_SHOP,
        customerId: "7000000001",
        days: 30,
        status: "running",
        error: "Retrying: Shopify's Admin API could not be reached",
        errorDetails: { code: "fetch_unreachable", retrying: true },
      },
    ],
  });
  for (const [i, [name, state, code, details]] of REASONS.entries()) {
    const record = await h.db.prisma.syncRecord.create({
      data: {
        shop: TEST_SHOP,
        kind: details.noun === "shipment" || code === "order_not_imported" ? "shipment" : "order",
        externalId: String(990_000 + i), // ids only: the pages' data has no words
        orderId: "5550001",
        customerId: "7000000001",
        state,
        attempts: details.attempts ?? 1,
        ...because(code, details),
      },
    });
    reasonIds.set(name, record.id);
  }
  // The attempts log of one of them: a refusal with the service's own words, a replayed answer, a timeout.
  const attempted = reasonIds.get("rejected")!;
  await h.db.prisma.syncAttempt.createMany({
    data: [
      {
        shop: TEST_SHOP,
        recordId: attempted,
        ok: false,
        outcome: "invalid_payload",
        httpStatus: 422,
        message: "The data was not accepted.",
        details: { serviceMessage: SERVICE_SAYS },
      },
      {
        shop: TEST_SHOP,
        recordId: attempted,
        ok: true,
        outcome: "success",
        message: "Already at the service (answered from its idempotency store).",
        details: { replayed: true },
      },
      {
        shop: TEST_SHOP,
        recordId: attempted,
        ok: false,
        outcome: "timeout",
        message: "127.0.0.1 did not answer within 10 s.",
      },
    ],
  });
  // The service's settings saved, so that Settings can check the connection.
  expect((await saveSettings(h.db.prisma, TEST_SHOP, settingsFor(h.emulator))).ok).toBe(true);
  await h.db.prisma.workerHeartbeat.create({ data: { workerId: "w-i18n", beatAt: new Date() } });
  await createDataRequestRow(h.db.prisma, imported.id);
}, 180_000);

const PAGES = () => [
  "/app",
  "/app/log",
  "/app/log?state=skipped&sort=asc",
  "/app/log?q=nothing-matches",
  `/app/log/${ids.imported}`,
  `/app/log/${ids.notConnected}`,
  `/app/log/${ids.noCustomer}`,
  `/app/log/${ids.handoff}`,
  `/app/log/${ids.handoffFailed}`,
  `/app/log/${ids.handoffUnavailable}`,
  "/app/log?kind=handoff",
  "/app/log/11111111-1111-4111-8111-111111111111", // the error state
  "/app/log?state=failed",
  "/app/log?state=waiting",
  ...[...reasonIds.values()].map((id) => `/app/log/${id}`),
  "/app/customers",
  "/app/customers?q=nobody",
  "/app/settings",
  "/app/privacy",
];

describe.each(["fr", "de"])("the admin with locale=%s", (locale) => {
  it("every admin page: no English, <html lang> matching", async () => {
    for (const path of PAGES()) {
      const { context, page } = await openAdmin(path, locale);
      try {
        await expectNoEnglish(page, locale, path);
      } finally {
        await context.close();
      }
    }
  }, 240_000);

  it("the settings form's validation errors", async () => {
    const { context, page } = await openAdmin("/app/settings", locale);
    try {
      await page.waitForSelector("[data-testid=settings-form]");
      // Every kind of problem one field at a time can show: a private address, a query, no scheme, empty.
      await page.fill("input[name=baseUrl]", "https://10.0.0.1/api");
      await page.fill("input[name=sandboxBaseUrl]", "https://sandbox.example.com/api?x=1");
      await page.fill("input[name=authUrl]", "auth.example.com");
      await page.fill("input[name=clientId]", "");
      await page.click("[data-testid=settings-form] button[type=submit]");
      await page.waitForSelector(".Polaris-InlineError");
      expect(await page.locator(".Polaris-InlineError").count()).toBeGreaterThanOrEqual(4);
      await expectNoEnglish(page, locale, "settings with validation errors");
    } finally {
      await context.close();
    }
  }, 60_000);

  it("Home after a failed connection check, and the settings page's check report", async () => {
    const host = new URL(h.emulator.url).host;
    await recordConnectionCheck(h.db.prisma, TEST_SHOP, {
      ok: false,
      message: `${host} had an internal problem (HTTP 502); try again later`,
      finding: { code: "server_error", host, status: 502 },
    });
    const home = await openAdmin("/app", locale);
    try {
      const words = (read(locale)["settings.check.finding.server_error"] as string)
        .replace("{host}", host)
        .replace("{status}", "502");
      expect(await home.page.getByText(words).count()).toBe(1);
      await expectNoEnglish(home.page, locale, "home after a failed check");
    } finally {
      await home.context.close();
    }
    const { context, page } = await openAdmin("/app/settings", locale);
    try {
      await page.getByRole("button", { name: read(locale)["home.setup.check.action"] as string }).click();
      await page.locator(".Polaris-Banner li").first().waitFor();
      expect(await page.locator(".Polaris-Banner li").count()).toBe(2); // the signature, the client
      await expectNoEnglish(page, locale, "settings with a check report");
    } finally {
      await context.close();
    }
  }, 60_000);

  it("the login page and an unknown address", async () => {
    const context = await h.browser.newContext({ userAgent: CHROME_USER_AGENT });
    const page = await context.newPage();
    await page.goto(`${h.app.url}/auth/login?locale=${locale}`);
    await page.waitForSelector("input[name=shop]");
    await expectNoEnglish(page, locale, "login");
    await page.fill("input[name=shop]", "not a shop!");
    await page.locator("button[type=submit]").click();
    await page.waitForSelector("[id$=Error], .Polaris-InlineError");
    await expectNoEnglish(page, locale, "login with an error");
    await page.goto(`${h.app.url}/no-such-page?locale=${locale}`);
    await expectNoEnglish(page, locale, "an unknown address");
    await context.close();
  }, 60_000);

  it("stays in the language when the app's own menu opens another page, and for an action's message", async () => {
    const { t } = { t: (key: string) => read(locale)[key] as string };
    const { context, page } = await openAdmin("/app", locale);
    await page
      .getByRole("link", { name: t("log.title") })
      .first()
      .click();
    await page
      .getByRole("heading", { name: t("log.title") })
      .first()
      .waitFor();
    await page.waitForLoadState("networkidle");
    await expectNoEnglish(page, locale, "sync log after the menu");
    await page.getByRole("button", { name: t("log.pause") }).click();
    await page.getByText(t("log.pausedToast")).waitFor();
    await expectNoEnglish(page, locale, "sync log paused");
    await page.getByRole("button", { name: t("log.resume") }).click();
    await page.getByText(t("log.resumedToast")).waitFor();
    await context.close();
  }, 60_000);
});

describe.each(["fr", "de"])("the service's own words with locale=%s", (locale) => {
  it("are quoted as the service's, labelled in the admin's language, on the record and in its attempts", async () => {
    const { context, page } = await openAdmin(`/app/log/${reasonIds.get("rejected")}`, locale);
    const quoted = page.locator("q[translate=no]", { hasText: SERVICE_SAYS });
    expect(await quoted.count()).toBe(2); // the reason and the attempt it came from
    expect(await page.getByText(read(locale)["reason.serviceLabel"] as string).count()).toBe(2);
    await context.close();
  }, 60_000);
});

describe("the admin in English", () => {
  it("shows the words stored with a reason and with each attempt, as the logs have them", async () => {
    const id = reasonIds.get("rejected")!;
    const record = await h.db.prisma.syncRecord.findUniqueOrThrow({ where: { id } });
    const { context, page } = await openAdmin(`/app/log/${id}`, "en");
    try {
      await page.getByText(record.reason!, { exact: true }).waitFor();
      expect(await page.getByText("127.0.0.1 did not answer within 10 s.").count()).toBe(1);
    } finally {
      await context.close();
    }
  }, 60_000);
});

describe.each(["en", "fr", "de"])("the sync log in %s", (locale) => {
  const t = (key: string) => read(locale)[key] as string;

  it("its filters, a record's page and the CSV's header row", async () => {
    const opened = await openAdmin("/app/log", locale);
    const context = opened.context;
    let page = opened.page;
    for (const label of ["log.filters.order", "log.filters.kind", "log.filters.state", "log.filters.sort"])
      expect(await page.getByLabel(t(label), { exact: true }).isVisible(), label).toBe(true);
    const states = await page.getByLabel(t("log.filters.state"), { exact: true }).locator("option").allTextContents();
    expect(states).toEqual(
      expect.arrayContaining([t("log.filters.allStates"), t("state.attention"), t("state.skipped")]),
    );
    await page.getByLabel(t("log.filters.state"), { exact: true }).selectOption("skipped");
    await page.getByRole("button", { name: t("log.filters.apply") }).click();
    await page.getByText(t("reason.not_connected")).first().waitFor();
    expect(await page.getByText(t("reason.no_customer")).first().isVisible()).toBe(true);

    const csv = await page.evaluate(async () => (await fetch("/app/log/export?state=skipped")).text());
    expect(csv.split("\r\n")[0]).toBe(
      [
        "id",
        "kind",
        "order_name",
        "order_id",
        "external_id",
        "customer_id",
        "customer",
        "created_at",
        "state",
        "resolved",
        "reason",
        "attempts",
      ]
        .map((column) => t(`csv.${column}`))
        .join(","),
    );
    expect(csv).toContain(t("reason.not_connected").replace(/"/g, '""'));

    await context.close();

    const detail = await openAdmin(`/app/log/${ids.notConnected}`, locale);
    page = detail.page;
    await page.getByText(t("log.entry.shopifyOrder")).waitFor();
    for (const label of ["log.entry.reason", "log.entry.customer", "log.entry.received", "log.entry.request"])
      expect(await page.getByText(t(label), { exact: true }).first().isVisible(), label).toBe(true);
    expect(await page.getByText(t("reason.not_connected")).isVisible()).toBe(true);
    expect(await page.getAttribute("html", "lang")).toBe(locale);
    await detail.context.close();
  }, 90_000);
});
