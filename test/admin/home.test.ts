// The home page's data on a real database: the worker's heartbeat (written by a running worker, gone when it
// stops), the last connection check, imports and failures per day, and the setup guide's steps.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../helpers/db";
import { SERVICE_SETTINGS_FORM } from "../helpers/service-settings";
import { SHOP } from "../sync/support";
import { loadHome, recordConnectionCheck } from "~/admin/home.server";
import { loadServiceSettings } from "~/connections/settings-loader.server";
import { saveSettings } from "~/connections/settings-store.server";
import { getSettingsView } from "~/connections/settings-view.server";
import { startWorker } from "~/sync/job-runner.server";

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase();
}, 120_000);

afterAll(async () => {
  await db?.close();
});

const unused = async () => {
  throw new Error("not used");
};

describe("home", () => {
  it("calls the worker alive while it runs, and not once it stopped", async () => {
    expect((await loadHome(db.prisma, SHOP)).worker.alive).toBe(false);
    const worker = startWorker(
      {
        prisma: db.prisma,
        loadSettings: async () => null,
        grantStore: () => unused() as never,
        importOrder: unused,
        importShipment: unused,
      },
      { pollMs: 50 },
    );
    try {
      for (let i = 0; i < 100 && (await db.prisma.workerHeartbeat.count()) === 0; i++)
        await new Promise((r) => setTimeout(r, 50));
      expect((await loadHome(db.prisma, SHOP)).worker.alive).toBe(true);
    } finally {
      await worker.stop();
    }
    expect((await loadHome(db.prisma, SHOP)).worker.alive).toBe(false);
    // A worker that died without stopping: its last beat goes stale.
    await db.prisma.workerHeartbeat.create({
      data: { workerId: "crashed", beatAt: new Date(Date.now() - 5 * 60_000) },
    });
    expect((await loadHome(db.prisma, SHOP)).worker).toMatchObject({ alive: false });
  });

  it("counts imports and failures per UTC day over 30 days, zeros included, and today's imports", async () => {
    const now = new Date("2026-11-23T12:00:00Z");
    const day = (d: string, h = 10) => new Date(`${d}T${String(h).padStart(2, "0")}:00:00Z`);
    await db.prisma.syncRecord.createMany({
      data: [
        {
          shop: SHOP,
          kind: "order",
          externalId: "a",
          orderId: "a",
          state: "imported",
          importedAt: day("2026-11-23", 1),
        },
        {
          shop: SHOP,
          kind: "order",
          externalId: "b",
          orderId: "b",
          state: "imported",
          importedAt: day("2026-11-23", 11),
        },
        { shop: SHOP, kind: "order", externalId: "c", orderId: "c", state: "updated", importedAt: day("2026-11-20") },
        { shop: SHOP, kind: "order", externalId: "d", orderId: "d", state: "failed", lastAttemptAt: day("2026-11-20") },
        {
          shop: SHOP,
          kind: "order",
          externalId: "e",
          orderId: "e",
          state: "failed",
          lastAttemptAt: day("2026-11-20"),
          resolvedAt: now,
        },
        { shop: SHOP, kind: "order", externalId: "f", orderId: "f", state: "imported", importedAt: day("2026-10-01") }, // outside
        {
          shop: "other.myshopify.com",
          kind: "order",
          externalId: "g",
          orderId: "g",
          state: "imported",
          importedAt: day("2026-11-23"),
        },
      ],
    });
    const home = await loadHome(db.prisma, SHOP, now);
    expect(home.days).toHaveLength(30);
    expect(home.days[0].day).toBe("2026-10-25");
    expect(home.days.at(-1)).toEqual({ day: "2026-11-23", imports: 2, failures: 0 });
    expect(home.days.find((d) => d.day === "2026-11-20")).toEqual({ day: "2026-11-20", imports: 1, failures: 2 });
    expect(home.days.reduce((n, d) => n + d.imports, 0)).toBe(3);
    expect(home.importsToday).toBe(2);
    expect(home.needsAttention).toBe(1); // the resolved one is not
  });

  it("keeps the last connection check and walks the setup guide", async () => {
    const steps = async () => Object.fromEntries((await loadHome(db.prisma, SHOP)).setup.map((s) => [s.id, s.done]));
    expect(await steps()).toEqual({ settings: false, check: false, theme: false, import: true });
    await db.prisma.shopSettings.upsert({
      where: { shop: SHOP },
      create: {
        shop: SHOP,
        environment: "production",
        baseUrl: "https://s",
        authUrl: "https://a",
        clientId: "c",
        clientSecretEnc: "x",
        signingSecretEnc: "y",
      },
      update: {},
    });
    await recordConnectionCheck(
      db.prisma,
      SHOP,
      { ok: false, message: "client rejected", finding: { code: "client_rejected", host: "a" } },
      new Date("2026-11-23T09:00:00Z"),
    );
    expect((await loadHome(db.prisma, SHOP)).settings).toEqual({
      complete: true,
      environment: "production",
      lastCheck: {
        at: "2026-11-23T09:00:00.000Z",
        ok: false,
        message: "client rejected",
        finding: { code: "client_rejected", host: "a" },
      },
    });
    expect(await steps()).toMatchObject({ settings: true, check: false });
    await recordConnectionCheck(db.prisma, SHOP, { ok: true, message: "Connection ok", finding: { code: "all_ok" } });
    await db.prisma.customerGrant.create({
      data: { shop: SHOP, customerId: "1", workspaceId: "w", scopes: "", accessTokenEnc: "x" },
    });
    expect(await steps()).toEqual({ settings: true, check: true, theme: true, import: true });
    expect((await loadHome(db.prisma, SHOP)).customersConnected).toBe(1);
  });

  it("calls the service configured by one rule: the setup guide, the settings page and the service agree", async () => {
    const shop = "configured-rule.myshopify.com";
    expect((await saveSettings(db.prisma, shop, SERVICE_SETTINGS_FORM)).ok).toBe(true);
    const views = async () => [
      (await loadHome(db.prisma, shop)).settings.complete,
      (await getSettingsView(db.prisma, shop)).configured,
      Boolean(await loadServiceSettings(db.prisma, shop)),
    ];
    expect(await views()).toEqual([true, true, true]);
    // The base URL of the environment it imports to is gone (a row written before the form asked for it): nothing
    // can be sent, so no page calls it configured and the service gets no settings.
    await db.prisma.shopSettings.update({ where: { shop }, data: { sandboxBaseUrl: "" } });
    expect(await views()).toEqual([false, false, false]);
    // Production does not need the sandbox's.
    await db.prisma.shopSettings.update({ where: { shop }, data: { environment: "production" } });
    expect(await views()).toEqual([true, true, true]);
  });

  it("reports the backlog and the age of the oldest waiting import", async () => {
    const now = new Date();
    await db.prisma.job.createMany({
      data: [
        { shop: SHOP, kind: "order", payload: {}, status: "queued", createdAt: new Date(now.getTime() - 600_000) },
        { shop: SHOP, kind: "shipment", payload: {}, status: "running", createdAt: new Date(now.getTime() - 60_000) },
        { shop: SHOP, kind: "order", payload: {}, status: "done" },
        { shop: SHOP, kind: "backfill", payload: {}, status: "queued" },
      ],
    });
    const home = await loadHome(db.prisma, SHOP, now);
    expect(home.backlog).toBe(2);
    expect(home.oldestWaitingSeconds).toBe(600);
    expect(home.busy).toBe(true);
    // Paused: the queued import does not move, so the page need not refresh; a running one still does.
    const later = new Date(Date.now() + 1000); // the queued jobs are due
    await db.prisma.shopSettings.update({ where: { shop: SHOP }, data: { syncPaused: true } });
    expect((await loadHome(db.prisma, SHOP, later)).busy).toBe(true);
    await db.prisma.job.updateMany({ where: { shop: SHOP, status: "running" }, data: { status: "done" } });
    expect((await loadHome(db.prisma, SHOP, later)).busy).toBe(false);
    await db.prisma.shopSettings.update({ where: { shop: SHOP }, data: { syncPaused: false } });
    expect((await loadHome(db.prisma, SHOP, later)).busy).toBe(true);
  });
});
