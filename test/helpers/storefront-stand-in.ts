// The storefront stand-in (dev/storefront/server.ts) in front of the test app, for tests that drive a shopper's
// browser: the Admin API's catalog answered by MSW (listening before the app starts: Shopify's library keeps the
// fetch it finds when the build loads), the service settings pointing at the OAuth emulator. Call it at the top of
// a test file; `store()` is the stand-in's URL once its hooks have run.
import type { AddressInfo } from "node:net";
import type http from "node:http";
import { setupServer } from "msw/node";
import { afterAll, beforeAll, expect } from "vitest";
import { demoCatalog } from "../../dev/admin-api/demo";
import { adminApiHandlers } from "../../dev/admin-api/handlers";
import { createStandIn } from "../../dev/storefront/server";
import { saveSettings } from "~/connections/settings-store.server";
import { emulatorSettings } from "./emulator-oauth";
import { withHarness } from "./harness";
import { TEST_API_KEY, TEST_API_SECRET, TEST_SHOP } from "./shopify";

export function withStorefrontStandIn(options: { proxyPrefix?: string } = {}) {
  const mock = setupServer(...adminApiHandlers(demoCatalog(), TEST_SHOP));
  beforeAll(() => mock.listen({ onUnhandledRequest: "bypass" }));
  const h = withHarness({ app: {}, emulator: "oauth", browser: true });
  let standIn: http.Server | undefined;
  let url = "";

  beforeAll(async () => {
    expect((await saveSettings(h.db.prisma, TEST_SHOP, emulatorSettings(h.emulator.url))).ok).toBe(true);
    const server = createStandIn({
      appUrl: h.app.url,
      shop: TEST_SHOP,
      apiKey: TEST_API_KEY,
      apiSecret: TEST_API_SECRET,
      ...options,
    });
    standIn = server;
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }, 240_000);

  afterAll(async () => {
    mock.close();
    await new Promise<void>((resolve) =>
      standIn ? (standIn.close(() => resolve()), standIn.closeAllConnections()) : resolve(),
    );
  });

  return { h, store: () => url };
}
