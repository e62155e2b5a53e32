// The attack the connect flow's one-time proof exists for, in Chromium on the stand-in hosts: customer A starts
// Connect workspace on their account pages and forwards the service's consent link; customer B, signed in as B in
// their own browser, approves it. Nothing may be connected to A (the attempt refused as wrong_customer, the
// authorization B gave revoked at the service), nothing to B, and B is told why. The test holds whatever way the
// shopper comes back (it follows the browser wherever the app sends it, the store's own domain included).
import { expect, it } from "vitest";
import { emulatorInternals } from "../../emulator/server";
import { DEMO_CUSTOMERS, customerName } from "../../dev/demo-store";
import { extensionFrame, FULL_PAGE, PROFILE_BLOCK, withExtensionHosts } from "../helpers/extension-hosts";
import { TEST_SHOP } from "../helpers/shopify";
import type { Page } from "playwright-core";

const [ADA, GRACE] = DEMO_CUSTOMERS.slice(0, 2).map((c) => ({ id: c.id, name: customerName(c), email: c.email }));
const hosts = withExtensionHosts({ customers: [ADA, GRACE], orders: [] });
const { h } = hosts;

/** Everything the shopper can read: the page and each frame in it (extensions render in frames). */
const readable = async (page: Page) =>
  (
    await Promise.all(
      page.frames().map((f) =>
        f
          .locator("body")
          .innerText()
          .catch(() => ""),
      ),
    )
  ).join("\n");

it("A forwards the consent link, B approves signed in as B: nothing connected to A, the grant revoked at the service, B told why", async () => {
  const oauth = emulatorInternals(h.emulator).oauth;
  const issuedBefore = new Set(oauth.refreshTokens.keys());

  // A opens the Connect workspace page; the consent link is what gets forwarded.
  const ada = await hosts.signedIn(ADA.id, "/pages/workspace-connect");
  const consent = extensionFrame(ada.page, FULL_PAGE).getByRole("link", { name: "Continue to the workspace service" });
  const forwarded = (await consent.getAttribute("href"))!;
  expect(new URL(forwarded).origin).toBe(h.emulator.url);
  await ada.context.close();

  // B, in their own browser and signed in as themselves, approves it (wherever the app sends B on the store's own
  // domain, https://<shop>/…, is the storefront stand-in: test/helpers/extension-hosts.ts).
  const grace = await hosts.signedIn(GRACE.id);
  await grace.page.goto(forwarded);
  await grace.page.check('input[name="workspace_id"][value="ws-globex"]');
  await grace.page.click('button[value="approve"]');
  await expect
    .poll(() => readable(grace.page), { timeout: 20_000 })
    .toMatch(/started from a different (customer )?account/);

  // Nothing connected, to either of them; the attempt's tokens are gone from the app…
  expect(await h.db.prisma.customerGrant.count({ where: { shop: TEST_SHOP } })).toBe(0);
  const attempts = await h.db.prisma.oAuthState.findMany({ where: { shop: TEST_SHOP, customerId: ADA.id } });
  expect(attempts.length).toBeGreaterThan(0);
  expect(attempts.every((a) => a.pendingTokensEnc === null)).toBe(true);
  expect(attempts.map((a) => a.result)).toContain("wrong_customer"); // what A's account pages are told
  // …and the authorization B gave is revoked at the service: every token issued meanwhile is dead there.
  const issued = [...oauth.refreshTokens.entries()].filter(([token]) => !issuedBefore.has(token));
  expect(issued.length).toBe(1);
  expect(issued.every(([, record]) => record.grant.revoked && record.grant.workspaceId === "ws-globex")).toBe(true);
  await grace.context.close();

  // A's own account pages tell A what happened, as the backend says.
  const back = await hosts.signedIn(ADA.id);
  const profile = extensionFrame(back.page, PROFILE_BLOCK);
  await profile.locator("[data-workspace-state=not_connected]").waitFor();
  expect(await profile.locator("[data-notice]").textContent()).toContain(
    "approved while signed in to a different account",
  );
  await back.context.close();
}, 90_000);
