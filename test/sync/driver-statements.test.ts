// The import job's per-job statements go through the database's driver, not Prisma (rawQuery, docs/decisions/0002):
// what they read must be what Prisma reads, whatever the process's time zone (pg reads a timestamp without zone in
// local time), and a statement inside a transaction must stay on the transaction's connection.
import { Prisma } from "@prisma/client";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { driverOf, rawQuery } from "~/db/sql.server";
import { resolve } from "~/sync/job-context.server";
import { ensureRecord } from "~/sync/record-state.server";
import { routeCustomer } from "~/sync/import-job.server";
import { leaseJobs } from "~/sync/queue.server";
import { loadServiceSettings } from "~/connections/settings-loader.server";
import { SERVICE_SETTINGS_FORM, serviceSettingsRow } from "../helpers/service-settings";
import { createTestDatabase, usingPostgres, type TestDatabase } from "../helpers/db";

const backends = usingPostgres() ? (["pglite", "postgres"] as const) : (["pglite"] as const);
const shop = "driver-shop.myshopify.com";

describe.each(backends)("import job statements through the driver on %s", (backend) => {
  let db: TestDatabase;
  const zone = process.env.TZ;
  beforeAll(async () => {
    db = await createTestDatabase(backend);
  });
  afterAll(async () => {
    await db?.close();
  });
  afterEach(() => {
    vi.restoreAllMocks();
    if (zone === undefined) delete process.env.TZ;
    else process.env.TZ = zone;
  });

  it("reads a record exactly as Prisma does, its times the same instants in a time zone far from UTC", async () => {
    const times = {
      sourceUpdatedAt: new Date("2026-11-20T15:15:03.123Z"),
      lastAttemptAt: new Date("2026-11-21T23:59:59.999Z"),
      importedAt: new Date("2026-11-22T00:00:00.001Z"),
    };
    const created = await db.prisma.syncRecord.create({
      data: {
        shop,
        kind: "order",
        externalId: "1001",
        orderId: "1001",
        state: "imported",
        reasonCode: null,
        attempts: 3,
        redactions: 1,
        ...times,
      },
    });
    process.env.TZ = "Pacific/Kiritimati"; // UTC+14: a local reading would move every time by 14 hours
    const driver = vi.spyOn(driverOf(db.prisma)!, "query");
    const job = { id: "job-1", shop, recordId: created.id } as Parameters<typeof ensureRecord>[1];
    const read = await ensureRecord(
      resolve({ prisma: db.prisma } as Parameters<typeof resolve>[0]),
      job,
      "order",
      "1001",
      "1001",
    );
    expect(driver).toHaveBeenCalledTimes(1);
    expect(read).toEqual(await db.prisma.syncRecord.findUniqueOrThrow({ where: { id: created.id } }));
    expect(read.importedAt?.toISOString()).toBe("2026-11-22T00:00:00.001Z");
  });

  it("takes a leased job's record and the shop's settings from the lease: no statement of its own for either", async () => {
    const leaseShop = "lease-read.myshopify.com";
    const created = await db.prisma.syncRecord.create({
      data: {
        shop: leaseShop,
        kind: "order",
        externalId: "2001",
        orderId: "2001",
        state: "failed",
        reasonCode: "rejected",
        reasonDetails: { detail: "line 1: quantity", failure: { kind: "rejected", status: 422 } },
        attempts: 2,
        sourceUpdatedAt: new Date("2026-11-20T15:15:03.123Z"),
        lastAttemptAt: new Date("2026-11-21T23:59:59.999Z"),
      },
    });
    await db.prisma.shopSettings.create({
      data: serviceSettingsRow(leaseShop, { ...SERVICE_SETTINGS_FORM, environment: "sandbox" }),
    });
    await db.prisma.job.create({ data: { shop: leaseShop, kind: "order", payload: {}, recordId: created.id } });
    process.env.TZ = "Pacific/Kiritimati";
    const [leased] = await leaseJobs(db.prisma, { workerId: "driver-test", limit: 1 });
    const driver = vi.spyOn(driverOf(db.prisma)!, "query");
    const deps = resolve({ prisma: db.prisma } as Parameters<typeof resolve>[0]);
    const read = await ensureRecord(deps, leased, "order", "2001", "2001");
    const settings = await loadServiceSettings(db.prisma, leaseShop, undefined, { row: leased.serviceRow });
    expect(driver).not.toHaveBeenCalled();
    // The same record and settings as reading them on their own, times and JSON alike.
    expect(read).toEqual(await db.prisma.syncRecord.findUniqueOrThrow({ where: { id: created.id } }));
    expect(settings).toEqual(await loadServiceSettings(db.prisma, leaseShop));
    expect(settings).toMatchObject({ clientSecret: "client-secret-1", signingSecret: "signing-secret-1" });
    // A shop without settings: the lease says so (null), and the job waits for settings as before.
    await db.prisma.job.create({ data: { shop: "no-settings.myshopify.com", kind: "order", payload: {} } });
    const [bare] = await leaseJobs(db.prisma, { workerId: "driver-test", limit: 1 });
    expect(bare.serviceRow).toBeNull();
    expect(bare.recordRow).toBeNull();
    expect(await loadServiceSettings(db.prisma, bare.shop, undefined, { row: bare.serviceRow })).toBeNull();
  });

  it("creates a missing record through the driver, and reads the customer's grant", async () => {
    await db.prisma.customerGrant.create({
      data: {
        shop,
        customerId: "7001",
        workspaceId: "ws-1",
        scopes: "orders:write",
        accessTokenEnc: "x",
        status: "needs_reconnect",
        statusReason: "revoked",
      },
    });
    const driver = vi.spyOn(driverOf(db.prisma)!, "query");
    const job = await db.prisma.job.create({ data: { shop, kind: "shipment", payload: {} } });
    const deps = resolve({ prisma: db.prisma, now: () => new Date("2026-11-25T10:00:00.000Z") } as Parameters<
      typeof resolve
    >[0]);
    const record = await ensureRecord(deps, job, "shipment", "9001", "1001");
    expect((await db.prisma.job.findUniqueOrThrow({ where: { id: job.id } })).recordId).toBe(record.id);
    expect(record).toMatchObject({
      shop,
      kind: "shipment",
      externalId: "9001",
      orderId: "1001",
      state: "pending",
      redactions: 0,
    });
    expect(record.createdAt.toISOString()).toBe("2026-11-25T10:00:00.000Z");
    const route = await routeCustomer(db.prisma, shop, "7001");
    expect(route).toEqual({
      kind: "needs_reconnect",
      grant: expect.objectContaining({ workspaceId: "ws-1", statusReason: "revoked" }),
    });
    expect(await routeCustomer(db.prisma, shop, "7002")).toEqual({ kind: "not_connected" });
    expect(driver.mock.calls.length).toBeGreaterThanOrEqual(3);
  });

  it("keeps a statement inside a transaction on the transaction's connection", async () => {
    const driver = vi.spyOn(driverOf(db.prisma)!, "query");
    await expect(
      db.prisma.$transaction(async (tx) => {
        await tx.shopSettings.create({ data: { shop: "tx-shop.myshopify.com" } });
        const [seen] = await rawQuery<{ n: number }>(
          tx,
          Prisma.sql`SELECT count(*)::int AS n FROM "ShopSettings" WHERE shop = ${"tx-shop.myshopify.com"}`,
        );
        expect(seen.n).toBe(1); // its own uncommitted row: the same connection
        throw new Error("roll back");
      }),
    ).rejects.toThrow("roll back");
    expect(driver).not.toHaveBeenCalled();
    expect(await db.prisma.shopSettings.count({ where: { shop: "tx-shop.myshopify.com" } })).toBe(0);
  });
});
