// The app's UI extensions with a keyboard only, in headless Chromium on the stand-in hosts
// (test/helpers/extension-hosts.ts: the real bundles, Polaris components with their roles in shadow roots, each
// extension in its own frame): on Shopify's order page, a failed import's Retry now and then Mark as resolved in the
// app's block; in the customer account, Connect workspace from the profile block to the Connect workspace page, the
// service's consent in a new tab, back on the profile there, the page left open connected and back to the profile (and a Disconnect that failed
// leaves focus where it was). Every stop on the way has visible focus and comes in document order, into the frames
// and the components' shadow roots (test/helpers/keyboard.ts); nothing is clicked.
import { expect, it } from "vitest";
import { newContext } from "../helpers/browser";
import { extensionFrame, FULL_PAGE, PROFILE_BLOCK, withExtensionHosts } from "../helpers/extension-hosts";
import { focusedLabel, startWalk, tabTo } from "../helpers/keyboard";
import { TEST_SHOP } from "../helpers/shopify";

const ADA = { id: "9601", name: "Ada Lovelace", email: "ada@example.com" };
const ORDER_ID = "8701";
const hosts = withExtensionHosts({ customers: [ADA], orders: [] });
const { h } = hosts;

it("Shopify's order page: Tab into the app's block to a failed import's Retry now, Enter; on to Mark as resolved, Enter", async () => {
  const record = await h.db.prisma.syncRecord.create({
    data: {
      shop: TEST_SHOP,
      kind: "order",
      externalId: ORDER_ID,
      orderId: ORDER_ID,
      customerId: ADA.id,
      state: "failed",
      reason: "The service refused the order: lines[0].sku: unknown SKU.",
      reasonCode: "rejected",
      lastAttemptAt: new Date(),
    },
  });
  await h.db.prisma.job.create({
    data: { shop: TEST_SHOP, kind: "order", payload: {}, status: "failed", attempts: 12, recordId: record.id },
  });
  const context = await newContext(h.browser);
  const page = await context.newPage();
  await page.setViewportSize({ width: 1280, height: 800 });
  try {
    await page.goto(hosts.orderPageUrl(ORDER_ID));
    const block = page.frameLocator("#block");
    const retry = block.getByRole("button", { name: "Retry now" });
    await retry.waitFor();
    const stops = await tabTo(page, retry);
    expect(stops.map((s) => s.label)).toEqual([
      'in "Workspace sync": s-link > a "Open in the sync log"',
      'in "Workspace sync": s-button > button[button] "Retry now"',
    ]);
    await page.keyboard.press("Enter");
    await block.locator("[data-outcome=success]", { hasText: "Queued again." }).waitFor();
    await expect
      .poll(async () => (await h.db.prisma.job.findMany({ where: { recordId: record.id } })).map((j) => j.status))
      .toContain("queued");
    // Still on Retry now: a keyboard user goes on from where they were.
    expect(await focusedLabel(page)).toBe('in "Workspace sync": s-button > button[button] "Retry now"');

    await h.db.prisma.job.updateMany({ where: { recordId: record.id, status: "queued" }, data: { status: "failed" } }); // it ran, and failed again
    await tabTo(page, block.getByRole("button", { name: "Mark as resolved" }));
    await page.keyboard.press("Enter");
    await block.locator("[data-outcome=success]", { hasText: "Marked as resolved." }).waitFor();
    await expect
      .poll(async () => (await h.db.prisma.syncRecord.findUniqueOrThrow({ where: { id: record.id } })).resolvedAt)
      .not.toBeNull();
    // Resolved, the button is gone (there is nothing left to resolve); Retry now, just before it, is still one key away.
    await block.getByText("Marked as resolved.").first().waitFor();
    // (the block shows the outcome, then reloads the order's records: the button goes with that reload)
    await expect.poll(() => block.getByRole("button", { name: "Mark as resolved" }).count()).toBe(0);
    await startWalk(page);
    await tabTo(page, retry, { backwards: true, max: 1 });
  } finally {
    await context.close();
  }
}, 90_000);

it("Connect workspace from the profile: the block's link, the Connect workspace page, the consent, back connected, back to the profile", async () => {
  const { context, page } = await hosts.signedIn(ADA.id);
  try {
    const profile = extensionFrame(page, PROFILE_BLOCK);
    const connectLink = profile.getByRole("link", { name: "Connect workspace" });
    await connectLink.waitFor();
    await tabTo(page, connectLink);
    await page.keyboard.press("Enter");
    await page.waitForURL(`${hosts.accountUrl()}/pages/workspace-connect`);
    const connect = extensionFrame(page, FULL_PAGE);
    const consent = connect.getByRole("link", { name: "Continue to the workspace service" });
    await consent.waitFor();
    await startWalk(page);
    await tabTo(page, consent);
    // Polaris' target "auto": the external consent page opens in a new tab, with the keyboard as with a click.
    const [tab] = await Promise.all([context.waitForEvent("page"), page.keyboard.press("Enter")]);

    // The service's consent page (the emulator's): the workspace by arrow keys in its radio group, then Approve.
    await tab.waitForURL(new RegExp(`^${h.emulator.url}/oauth/authorize`));
    await startWalk(tab);
    await tabTo(tab, tab.locator('input[name="workspace_id"]:checked'));
    await tab.keyboard.press("ArrowDown");
    const chosen = await tab.locator('input[name="workspace_id"]:checked').getAttribute("value");
    await tabTo(tab, tab.getByRole("button", { name: "Approve" }));
    await tab.keyboard.press("Enter");

    // Completed on the store, back on the profile in that tab; the Connect page left open shows it too.
    await tab.waitForURL(`${hosts.accountUrl()}/profile`);
    await extensionFrame(tab, PROFILE_BLOCK).locator("[data-workspace-state=connected]").waitFor();
    await tab.close();
    await connect.locator("[data-workspace-state=connected]").waitFor({ timeout: 15_000 });
    expect(await connect.locator("[data-notice]").textContent()).toBe("Your workspace is connected.");
    await startWalk(page);
    await tabTo(page, connect.getByRole("link", { name: "Back to your profile" }));
    await page.keyboard.press("Enter");
    await page.waitForURL(`${hosts.accountUrl()}/profile`);
    await profile.locator("[data-workspace-state=connected]").waitFor();
    expect(await profile.locator("body").textContent()).toContain(`Connected to ${chosen}`);
    await startWalk(page);
    const disconnect = profile.getByRole("button", { name: "Disconnect" });
    await tabTo(page, disconnect);
    // Disconnect when the app cannot be reached: the block says so, and focus is still on Disconnect.
    await context.route(`${h.app.url}/customer-account/connection`, (route) =>
      route.request().method() === "POST" ? route.fulfill({ status: 502, body: "" }) : route.fallback(),
    );
    await page.keyboard.press("Enter");
    await profile.locator("[data-notice=critical]").waitFor();
    expect(await focusedLabel(page)).toBe('in "Workspace": s-button > button[button] "Disconnect"');
  } finally {
    await context.close();
  }
}, 90_000);
