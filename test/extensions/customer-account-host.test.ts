// The customer account extensions in Chromium, on the stand-in that holds them to Shopify's rules
// (dev/customer-account): blocks get no navigation.currentEntry (Chromium's own window.navigation included), full
// pages get it in Shopify's extension: form, Polaris components have their roles. A shopper connects from the profile
// block through the Connect workspace page, the emulator's consent and the store's completion step (the app proxy),
// and ends on their profile, connected: under every form of currentEntry.url Shopify's sources allow, and with the
// consent in this tab or a new one (Polaris' target "auto" opens external links in a new window). The
// pre-authenticated Order status page asks to sign in, never shows an error.
import { describe, expect, it } from "vitest";
import type { Frame, Page } from "playwright-core";
import { CURRENT_ENTRY_FORMS, type CurrentEntryForm } from "../../dev/customer-account/server";
import {
  apiViolations,
  extensionFrame,
  FULL_PAGE,
  ORDER_STATUS_BLOCK,
  PROFILE_BLOCK,
  withExtensionHosts,
} from "../helpers/extension-hosts";
import { newContext } from "../helpers/browser";
import { TEST_SHOP } from "../helpers/shopify";

const customer = (n: number) => ({ id: String(9400 + n), name: `Shopper ${n}`, email: `shopper${n}@example.com` });
const ADA = customer(1);
const CUSTOMERS = [ADA, ...Array.from({ length: 8 }, (_, i) => customer(i + 2))];
const ORDER = { id: "7401", name: "#7401", customerId: ADA.id };
const hosts = withExtensionHosts({ customers: CUSTOMERS, orders: [ORDER] });
const { h } = hosts;

const frame = async (page: Page, target: string): Promise<Frame> =>
  (await page.locator(`iframe[data-target="${target}"]`).elementHandle())!.contentFrame() as Promise<Frame>;
const currentEntryOf = (f: Frame) =>
  f.evaluate(
    () => (window as unknown as { navigation: { currentEntry: { url: string } } }).navigation.currentEntry.url,
  );

describe("customer account extensions on a host with Shopify's rules", () => {
  it("a block gets no navigation.currentEntry, not even Chromium's own; a full page gets Shopify's extension:/ URL", async () => {
    const { context, page } = await hosts.signedIn(ADA.id);
    const profile = extensionFrame(page, PROFILE_BLOCK);
    await profile.locator("[data-workspace-state=not_connected]").waitFor();
    const block = await frame(page, PROFILE_BLOCK);
    expect(
      await block.evaluate(
        () => typeof (window as unknown as { navigation: { navigate: unknown } }).navigation.navigate,
      ),
    ).toBe("function");
    const read = () =>
      block.evaluate(() => {
        try {
          return String((window as unknown as { navigation: { currentEntry: unknown } }).navigation.currentEntry);
        } catch (error) {
          return `refused: ${(error as Error).message}`;
        }
      });
    expect(await read()).toBe(
      "refused: navigation.currentEntry is not part of the API Shopify gives customer-account.profile.block.render",
    );
    // Nothing beyond the target's API: the order status block's `order` is not the profile block's.
    expect(await block.evaluate(() => "order" in (window as unknown as { shopify: object }).shopify)).toBe(false);
    expect(await apiViolations(page)).toEqual([expect.stringContaining("navigation.currentEntry")]);
    await expect(page.locator("[data-api-violations]").textContent()).resolves.toContain("navigation.currentEntry");

    await page.goto(`${hosts.accountUrl()}/pages/workspace-connect?x=1`);
    await extensionFrame(page, FULL_PAGE).locator("[data-workspace-state=ready]").waitFor();
    expect(await currentEntryOf(await frame(page, FULL_PAGE))).toBe("extension:/");
    expect(await apiViolations(page)).toEqual([]);
    await context.close();
  });

  it("both forms Shopify gives for another extension's page lead there: extension:<handle>/ (examples) and extension://<handle> (prose)", async () => {
    const { context, page } = await hosts.signedIn(ADA.id);
    for (const href of ["extension:workspace-connect/", "extension://workspace-connect"]) {
      await page.goto(`${hosts.accountUrl()}/profile`);
      await extensionFrame(page, PROFILE_BLOCK).locator("[data-workspace-state=not_connected]").waitFor();
      const block = await frame(page, PROFILE_BLOCK);
      await block.evaluate(
        (to) => (window as unknown as { navigation: { navigate(url: string): void } }).navigation.navigate(to),
        href,
      );
      await page.waitForURL(`${hosts.accountUrl()}/pages/workspace-connect`);
      await extensionFrame(page, FULL_PAGE).locator("[data-workspace-state=ready]").waitFor();
    }
    await context.close();
  });

  // Every form of currentEntry.url, the consent in this tab; Shopify's own form with the consent in a new tab.
  const cases: { form: CurrentEntryForm; links: "same-window" | "new-window" }[] = [
    ...CURRENT_ENTRY_FORMS.map((form) => ({ form, links: "same-window" as const })),
    { form: "extension:/", links: "new-window" },
    { form: "https-query", links: "new-window" },
  ];
  const expectedEntry: Record<CurrentEntryForm, (pageUrl: string) => string> = {
    "extension:/": () => "extension:/",
    "extension:/route": () => "extension:/connect",
    "extension://": () => "extension://",
    https: (pageUrl) => pageUrl,
    "https-query": (pageUrl) => `${pageUrl}?locale=en`,
  };

  it.each(cases.map((c, i) => ({ ...c, shopper: CUSTOMERS[i + 1] })))(
    "currentEntry.url $form, consent in a $links: profile → Connect page → consent → Approve → the profile, connected",
    async ({ form, links, shopper }) => {
      Object.assign(hosts.behaviour(), { currentEntry: form, externalLinks: links });
      const { context, page } = await hosts.signedIn(shopper.id);
      const account = hosts.accountUrl();
      const profile = extensionFrame(page, PROFILE_BLOCK);
      // Polaris components with their roles: the block's Connect is a link (it has an href), Disconnect a button.
      await profile.getByRole("link", { name: "Connect workspace" }).click();
      await page.waitForURL(`${account}/pages/workspace-connect`);
      const connect = extensionFrame(page, FULL_PAGE);
      await expect(connect.getByRole("heading", { level: 1 }).textContent()).resolves.toBe("Connect your workspace");
      await connect.locator("[data-workspace-state=ready]").waitFor();
      expect(await currentEntryOf(await frame(page, FULL_PAGE))).toBe(
        expectedEntry[form](`${account}/pages/workspace-connect`),
      );

      const consentLink = connect.getByRole("link", { name: "Continue to the workspace service" });
      let consent = page;
      if (links === "new-window") {
        [consent] = await Promise.all([context.waitForEvent("page"), consentLink.click()]);
        await consent.waitForLoadState();
      } else {
        await consentLink.click();
      }
      await consent.waitForURL(new RegExp(`^${h.emulator.url}/oauth/authorize`));
      await consent.check('input[name="workspace_id"][value="ws-acme"]');
      await consent.click('button[value="approve"]');

      // Completed on the store (Shopify's app proxy), then back to the profile under Shopify's account root.
      await consent.waitForURL(`${account}/profile`);
      const back = extensionFrame(consent, PROFILE_BLOCK);
      await back.locator("[data-workspace-state=connected]").waitFor();
      expect(await back.locator("[data-notice]").textContent()).toBe("Your workspace is connected.");
      expect(await back.getByRole("status").count()).toBe(1); // Polaris' banner: a status (an alert when critical)
      expect(await back.locator("body").textContent()).toContain("Connected to ws-acme since");
      await expect(back.getByRole("button", { name: "Disconnect" }).count()).resolves.toBe(1);
      expect(await h.db.prisma.customerGrant.count({ where: { shop: TEST_SHOP, customerId: shopper.id } })).toBe(1);
      expect(await apiViolations(consent)).toEqual([]);

      if (links === "new-window") {
        // The Connect page left open in the first tab asks the backend and shows the connection too.
        await connect.locator("[data-workspace-state=connected]").waitFor({ timeout: 15_000 });
        expect(await connect.locator("[data-notice]").textContent()).toBe("Your workspace is connected.");
        expect(await apiViolations(page)).toEqual([]);
      }
      await context.close();
    },
    60_000,
  );

  it("signed in to the account pages but not to the online store: the store's completion step asks to sign in there, then completes", async () => {
    Object.assign(hosts.behaviour(), { currentEntry: "extension:/", externalLinks: "same-window" });
    const shopper = CUSTOMERS[cases.length + 1];
    const { context, page } = await hosts.signedIn(shopper.id, "/pages/workspace-connect");
    await context.clearCookies({ name: "customer_id" }); // the storefront's session, apart from the account's
    const connect = extensionFrame(page, FULL_PAGE);
    await connect.getByRole("link", { name: "Continue to the workspace service" }).click();
    await page.waitForURL(new RegExp(`^${h.emulator.url}/oauth/authorize`));
    await page.check('input[name="workspace_id"][value="ws-acme"]');
    await page.click('button[value="approve"]');
    await page.getByRole("link", { name: "Sign in" }).click(); // the theme's sign-in, back to the completion step
    await page.click(`[data-login="${shopper.id}"]`);
    await page.waitForURL(`${hosts.accountUrl()}/profile`);
    await extensionFrame(page, PROFILE_BLOCK).locator("[data-workspace-state=connected]").waitFor();
    expect(await h.db.prisma.customerGrant.count({ where: { shop: TEST_SHOP, customerId: shopper.id } })).toBe(1);
    await context.close();
  }, 60_000);

  it("the pre-authenticated Order status page asks to sign in (Shopify's requireLogin), then shows the order's state", async () => {
    await h.db.prisma.syncRecord.create({
      data: {
        shop: TEST_SHOP,
        kind: "order",
        externalId: ORDER.id,
        orderId: ORDER.id,
        customerId: ADA.id,
        state: "imported",
      },
    });
    const context = await newContext(h.browser);
    const page = await context.newPage();
    await page.goto(`${hosts.accountUrl()}/orders/${ORDER.id}?preauth=1`);
    const block = extensionFrame(page, ORDER_STATUS_BLOCK);
    await block.locator("[data-workspace-order=sign_in]").waitFor();
    expect(await block.locator("body").textContent()).toContain(
      "Sign in to see whether this order reached your workspace.",
    );
    expect(await block.locator("[data-workspace-order=unavailable], [tone=critical]").count()).toBe(0);
    await block.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(new RegExp(`^${hosts.accountUrl()}/login`));
    await page.click(`[data-login="${ADA.id}"]`);
    await page.waitForURL(`${hosts.accountUrl()}/orders/${ORDER.id}`);
    await block.locator("[data-workspace-order=sent]").waitFor();
    expect(await apiViolations(page)).toEqual([]);
    await context.close();
  }, 60_000);
});
