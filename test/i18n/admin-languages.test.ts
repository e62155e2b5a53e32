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
import { drainJobs } from "~/sync/worker.server";
import { CHROME_USER_AGENT } from "../helpers/browser";
import { createDataRequestRow, createHandoffRow, openAdminPage, serveSetupGuideShopify } from "../helpers/admin-pages";
import { withHarness } from "../helpers/harness";
import { sendWebhook, TEST_SHOP } from "../helpers/shopify";
import { connectCustomer, shopifyOrder, syncDeps } from "../sync/support";

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
  expect(english, `${what} (${locale}): English messages on the page`).toEqual([]);
  const words = texts.filter((text) => ENGLISH_ONLY.test(text));
  expect(words, `${what} (${locale}): English words on the page`).toEqual([]);
}

const openAdmin = (path: string, locale: string) => openAdminPage(h.browser, h.app.url, path, { locale, idle: true });

const stores = new Map<string, GrantStore>();
const ids = { imported: "", notConnected: "", noCustomer: "", handoff: "" };

beforeAll(async () => {
  const deps = syncDeps(h.db.prisma, h.emulator, stores);
  await connectCustomer(h.db.prisma, h.emulator, stores, "7000000001");
  await h.db.prisma.customerGrant.update({
    where: { shop_customerId: { shop: TEST_SHOP, customerId: "7000000001" } },
    data: { customerName: "Ada Lovelace" },
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
  await h.db.prisma.backfill.create({
    data: { shop: TEST_SHOP, customerId: "7000000001", days: 60, total: 100, queued: 40, status: "running" },
  });
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
  "/app/log/11111111-1111-4111-8111-111111111111", // the error state
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
