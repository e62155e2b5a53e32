// Setup that knows where the merchant is: the theme editor's deep links (app embed, blocks) with the app's API key
// and the blocks' handles, and whether the app embed is on in the published theme, read from its
// config/settings_data.json through Shopify's Admin API client (MSW stands in for Shopify), shown on the home page.
import { readdirSync } from "node:fs";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { graphql, HttpResponse } from "msw";
import { setupServer } from "msw/node";
import { setDatabase } from "~/db.server";
import { embedEnabled, embedStatus, themeEditorLinks, BLOCKS, EMBED_HANDLE } from "~/admin/theme-setup.server";
import type { AdminGraphql } from "~/shopify/admin-api.server";
import { SHOPIFY_API_VERSION } from "~/shopify/api-version";
import { themeHandlers } from "../../dev/admin-api/themes";
import { withHarness } from "../helpers/harness";
import { adminGraphqlViaShopify, embeddedUrl, TEST_API_KEY, TEST_SHOP } from "../helpers/shopify";
import { CHROME_USER_AGENT } from "../helpers/browser";

// The test shop's Admin API endpoint, as MSW matches it.
const shopAdminApi = graphql.link(`https://${TEST_SHOP}/admin/api/${SHOPIFY_API_VERSION}/graphql.json`);

const mock = setupServer();
// Before the harness imports the app (Shopify's library takes the global fetch when it is first imported).
beforeAll(() => mock.listen({ onUnhandledRequest: "bypass" }));
afterEach(() => mock.resetHandlers());
afterAll(() => mock.close());
const h = withHarness({ app: {} });
let adminGraphql: AdminGraphql;
beforeAll(async () => {
  setDatabase(h.db); // Shopify's library loads the session through the app's storage, on this database
  adminGraphql = await adminGraphqlViaShopify();
});

describe("theme setup", () => {
  it("links into the theme editor with the app embed and each block ready, by their handles", () => {
    const blocks = readdirSync("extensions/storefront/blocks");
    for (const handle of [EMBED_HANDLE, BLOCKS.continueCart.handle, BLOCKS.connectWorkspace.handle])
      expect(blocks).toContain(`${handle}.liquid`);
    const links = themeEditorLinks(TEST_SHOP, TEST_API_KEY);
    expect(links.embed).toBe(
      `https://${TEST_SHOP}/admin/themes/current/editor?context=apps&template=index&activateAppId=${TEST_API_KEY}%2Fcontinue-cart-embed`,
    );
    expect(links.continueCart).toBe(
      `https://${TEST_SHOP}/admin/themes/current/editor?template=cart&addAppBlockId=${TEST_API_KEY}%2Fcontinue-cart&target=mainSection`,
    );
    expect(new URL(links.connectWorkspace).searchParams.get("addAppBlockId")).toBe(`${TEST_API_KEY}/connect-workspace`);
  });

  it("counts only this app's embed, not another app's block with the same file name", () => {
    const settings = (types: [string, boolean][]) => ({
      current: { blocks: Object.fromEntries(types.map(([type, disabled], i) => [`b${i}`, { type, disabled }])) },
    });
    const ours = "shopify://apps/merchant-integration/blocks/continue-cart-embed/5f0c-4b1e";
    const theirs = "shopify://apps/cart-tools/blocks/continue-cart-embed/9a9a-0101";
    expect(embedEnabled(settings([[ours, false]]), "merchant-integration")).toBe(true);
    expect(
      embedEnabled(
        settings([
          [theirs, false],
          [ours, true],
        ]),
        "merchant-integration",
      ),
    ).toBe(false);
    expect(embedEnabled(settings([[theirs, false]]), "merchant-integration")).toBe(false);
    expect(embedEnabled(settings([[ours, false]]), ".*")).toBe(false); // a handle is never a pattern
  });

  it("reads the app embed's state from the published theme's settings_data.json", async () => {
    mock.use(...themeHandlers("on", "Dawn"));
    expect(await embedStatus(adminGraphql, TEST_SHOP)).toEqual({ state: "on", themeName: "Dawn" });
    mock.use(...themeHandlers("disabled", "Dawn"));
    expect(await embedStatus(adminGraphql, TEST_SHOP)).toEqual({ state: "off", themeName: "Dawn" });
    // "absent": only another app's embed with the same file name is on, which is not ours.
    mock.use(...themeHandlers("absent", "Refresh"));
    expect(await embedStatus(adminGraphql, TEST_SHOP)).toEqual({ state: "off", themeName: "Refresh" });
    // Without read_themes Shopify answers with an access error: the page says it could not check, nothing breaks.
    mock.use(
      shopAdminApi.query("ThemeEmbedStatus", () =>
        HttpResponse.json({
          errors: [{ message: "Access denied for themes field.", extensions: { code: "ACCESS_DENIED" } }],
        }),
      ),
    );
    expect(await embedStatus(adminGraphql, TEST_SHOP)).toMatchObject({
      state: "unknown",
      why: "noAccess", // worded on the page: "the read_themes permission may be missing"
    });
  });

  it("shows on the home page whether the embed is on, with the deep links", async () => {
    mock.use(...themeHandlers("disabled", "Dawn"));
    const page = await fetch(await embeddedUrl(h.app.url, "/app"), { headers: { "User-Agent": CHROME_USER_AGENT } });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("App embed off in Dawn");
    expect(html).toMatch(new RegExp(`href="[^"]*activateAppId=${TEST_API_KEY}%2Fcontinue-cart-embed`));
    expect(html).toMatch(new RegExp(`href="[^"]*addAppBlockId=${TEST_API_KEY}%2Fconnect-workspace`));

    mock.use(...themeHandlers("on", "Dawn"));
    const on = await (
      await fetch(await embeddedUrl(h.app.url, "/app"), { headers: { "User-Agent": CHROME_USER_AGENT } })
    ).text();
    expect(on).toContain("App embed on in Dawn");
    expect(on).not.toMatch(/href="[^"]*activateAppId/); // nothing left to switch on
  });
});
