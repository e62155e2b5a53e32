// The sync log's plain modules on a real database: keyset pages over records and handoffs (forwards, backwards,
// both sorts), every filter, shop scoping, idempotent retry/resolve, and the CSV export of a view.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../helpers/db";
import { SHOP } from "../sync/support";
import { decodeCursor, encodeCursor, filterParams, parseLogFilter, type LogFilter } from "~/admin/log-query.server";
import { listLog, type LogRow } from "~/admin/log.server";
import { resolveMatching, resolveRecords, retryRecord, retrySelected } from "~/admin/log-actions.server";
import { csvField, exportLogCsv } from "~/admin/log-export.server";
import { adminOrderUrl, loadLogEntry } from "~/admin/log-detail.server";
import { orderNameOf } from "~/sync/mapping.server";

let db: TestDatabase;
const OTHER = "other-shop.myshopify.com";
const base = Date.parse("2026-11-01T00:00:00Z");
const at = (minutes: number) => new Date(base + minutes * 60_000);
const filter = (query = ""): LogFilter => parseLogFilter(new URLSearchParams(query));

beforeAll(async () => {
  db = await createTestDatabase();
  const states = ["imported", "failed", "skipped", "waiting", "pending"];
  // 130 records, two per minute (equal timestamps: the id breaks the tie), 20 handoffs in between, and noise of another shop.
  await db.prisma.syncRecord.createMany({
    data: Array.from({ length: 130 }, (_, i) => ({
      shop: SHOP,
      kind: i % 4 === 3 ? "shipment" : "order",
      externalId: `ext-${i}`,
      orderId: `${900 + Math.floor(i / 4)}`,
      orderName: `#${1000 + Math.floor(i / 4)}`,
      customerId: i % 2 === 0 ? "7000000001" : "7000000002",
      state: states[i % states.length],
      reason: i % 5 === 1 ? `=HYPERLINK("x") failed, "quoted"` : null,
      createdAt: at(Math.floor(i / 2)),
    })),
  });
  await db.prisma.cartHandoff.createMany({
    data: Array.from({ length: 20 }, (_, i) => ({
      shop: SHOP,
      customerId: "7000000001",
      cartTokenHash: `h${i}`,
      contentHash: `c${i}`,
      externalCartId: `cart-${i}`,
      idempotencyKey: `k${i}`,
      lineCount: 2,
      lines: [],
      state: i % 2 ? "created" : "failed",
      createdAt: at(i * 3),
    })),
  });
  await db.prisma.syncRecord.createMany({
    data: Array.from({ length: 10 }, (_, i) => ({
      shop: OTHER,
      kind: "order",
      externalId: `o-${i}`,
      orderId: `o-${i}`,
      state: "failed",
      createdAt: at(i),
    })),
  });
  await db.prisma.customerGrant.create({
    data: {
      shop: SHOP,
      customerId: "7000000001",
      customerName: "Ada Lovelace",
      workspaceId: "ws-1",
      scopes: "",
      accessTokenEnc: "x",
    },
  });
}, 120_000);

afterAll(async () => {
  await db?.close();
});

async function walkPages(f: LogFilter, limit: number) {
  const seen: LogRow[] = [];
  let after;
  for (let guard = 0; guard < 100; guard++) {
    const page = await listLog(db.prisma, SHOP, f, { after, limit });
    seen.push(...page.rows);
    if (!page.next) break;
    after = decodeCursor(page.next);
  }
  return seen;
}

describe("sync log pages", () => {
  it("walks every record and handoff once, newest first, and back again with the previous cursor", async () => {
    const rows = await walkPages(filter(), 17);
    expect(rows).toHaveLength(150);
    expect(new Set(rows.map((r) => r.id)).size).toBe(150);
    const times = rows.map((r) => r.createdAt);
    expect([...times].sort().reverse()).toEqual(times);
    // Page 3, then "previous" gives exactly page 2.
    const p1 = await listLog(db.prisma, SHOP, filter(), { limit: 17 });
    const p2 = await listLog(db.prisma, SHOP, filter(), { after: decodeCursor(p1.next), limit: 17 });
    const p3 = await listLog(db.prisma, SHOP, filter(), { after: decodeCursor(p2.next), limit: 17 });
    const back = await listLog(db.prisma, SHOP, filter(), { before: decodeCursor(p3.previous), limit: 17 });
    expect(back.rows.map((r) => r.id)).toEqual(p2.rows.map((r) => r.id));
    expect(p1.previous).toBeNull();
  });

  it("sorts oldest first", async () => {
    const rows = await walkPages(filter("sort=asc"), 40);
    expect(rows).toHaveLength(150);
    expect(rows.map((r) => r.createdAt)).toEqual(rows.map((r) => r.createdAt).sort());
  });

  it("filters by kind, state, customer, dates and order name or number; never shows another shop", async () => {
    expect((await walkPages(filter("kind=handoff"), 50)).every((r) => r.kind === "handoff")).toBe(true);
    expect(await walkPages(filter("kind=handoff"), 50)).toHaveLength(20);
    const failed = await walkPages(filter("state=failed"), 50);
    expect(failed.length).toBe(26 + 10); // 26 records, 10 failed handoffs
    expect(failed.every((r) => r.state === "failed")).toBe(true);
    expect(await walkPages(filter("kind=order&state=failed&customer=7000000002"), 50)).toSatisfy((rows: LogRow[]) =>
      rows.every((r) => r.kind === "order" && r.state === "failed" && r.customerId === "7000000002"),
    );
    const byName = await walkPages(filter("q=%231003"), 50);
    expect(byName.map((r) => r.orderName)).toEqual(["#1003", "#1003", "#1003", "#1003"]);
    expect(await walkPages(filter("q=1003"), 50)).toHaveLength(4);
    expect(await walkPages(filter("q=903"), 50)).toHaveLength(4); // Shopify's order id
    const day = await walkPages(filter("from=2026-11-01&to=2026-11-01"), 50);
    expect(day.length).toBe(150); // everything is within the first 65 minutes
    expect(await walkPages(filter("from=2026-11-02"), 50)).toHaveLength(0);
    expect((await walkPages(filter(), 200)).some((r) => r.externalId.startsWith("o-"))).toBe(false);
    expect(byName[0].customer === "Ada Lovelace" || byName[0].customer === "Customer 7000000002").toBe(true);
  });

  it("keeps Shopify's order name as merchants know it: a fulfillment's is its order's", () => {
    expect(orderNameOf("order", { name: "#1001" })).toBe("#1001");
    expect(orderNameOf("shipment", { name: "#1001.2" })).toBe("#1001");
    expect(orderNameOf("order", { name: "x".repeat(65) })).toBeUndefined();
    expect(orderNameOf("order", { name: 1001 })).toBeUndefined();
  });

  it("drops hostile URL values and round-trips the filter", async () => {
    const f = filter("kind=nope&state=%3Cscript%3E&from=2026-13-45&customer=abc&q=" + "x".repeat(100) + "&sort=asc");
    expect(f).toEqual({
      kind: undefined,
      state: undefined,
      from: undefined,
      to: undefined,
      customer: undefined,
      q: undefined,
      sort: "asc",
    });
    expect(decodeCursor("not-a-cursor")).toBeUndefined();
    expect(decodeCursor(Buffer.from("2026-01-01T00:00:00Z|x'; drop").toString("base64url"))).toBeUndefined();
    const cursor = { at: at(5), id: "abc-123" };
    expect(decodeCursor(encodeCursor(cursor))).toEqual(cursor);
    expect(filterParams(filter("kind=order&state=attention&q=%231001")).toString()).toBe(
      "kind=order&state=attention&q=%231001",
    );
  });
});

describe("actions", () => {
  it("resolves failures once; they leave 'needs attention'; another shop's ids are not touched", async () => {
    const attention = await walkPages(filter("state=attention&kind=order"), 100);
    const ids = attention.slice(0, 3).map((r) => r.id);
    const other = await db.prisma.syncRecord.findFirstOrThrow({ where: { shop: OTHER } });
    expect((await resolveRecords(db.prisma, SHOP, [...ids, other.id])).message).toBe(
      "3 imports marked as resolved. 1 already resolved or not failed.",
    );
    expect((await resolveRecords(db.prisma, SHOP, ids)).message).toBe(
      "Already resolved, or not failed. Nothing to do.",
    );
    expect((await db.prisma.syncRecord.findUniqueOrThrow({ where: { id: other.id } })).resolvedAt).toBeNull();
    expect(await walkPages(filter("state=attention&kind=order"), 100)).toHaveLength(attention.length - 3);
    expect((await walkPages(filter("state=resolved"), 100)).map((r) => r.id).sort()).toEqual([...ids].sort());
    const rest = await resolveMatching(db.prisma, SHOP, filter("kind=shipment&state=attention"));
    expect(rest.message).toMatch(/^\d+ imports? marked as resolved\.$/);
    expect(await walkPages(filter("kind=shipment&state=attention"), 100)).toHaveLength(0);
  });

  it("retries say plainly when there is nothing to do", async () => {
    const imported = await db.prisma.syncRecord.findFirstOrThrow({ where: { shop: SHOP, state: "imported" } });
    expect(await retryRecord(db.prisma, SHOP, imported.id)).toEqual({
      ok: true,
      message: "Already imported. Nothing to retry.",
    });
    const failed = await db.prisma.syncRecord.findFirstOrThrow({ where: { shop: SHOP, state: "failed" } });
    const other = await db.prisma.syncRecord.findFirstOrThrow({ where: { shop: OTHER } });
    expect((await retryRecord(db.prisma, SHOP, other.id)).message).toBe("That import was not found.");
    // No job to send it from (seeded rows have none): said, not pretended.
    expect((await retryRecord(db.prisma, SHOP, failed.id)).ok).toBe(false);
    const job = await db.prisma.job.create({
      data: { shop: SHOP, kind: "order", payload: {}, status: "failed", recordId: failed.id, attempts: 12 },
    });
    expect((await retryRecord(db.prisma, SHOP, failed.id)).message).toBe(
      "Queued again. The state updates once it has run.",
    );
    expect(await db.prisma.job.findUniqueOrThrow({ where: { id: job.id } })).toMatchObject({
      status: "queued",
      attempts: 0,
    });
    expect((await retryRecord(db.prisma, SHOP, failed.id)).message).toBe(
      "Already queued: it runs now. Nothing else to do.",
    );
    await db.prisma.job.update({ where: { id: job.id }, data: { status: "running" } });
    expect((await retryRecord(db.prisma, SHOP, failed.id)).message).toBe(
      "It is being imported right now. Nothing to do.",
    );
    expect((await retrySelected(db.prisma, SHOP, [failed.id, imported.id])).message).toBe(
      "0 imports queued again, 1 running now, 1 not failed (left alone).",
    );
    expect(await db.prisma.job.count({ where: { recordId: failed.id } })).toBe(1);
  });

  it("shows a record with its attempts, its request and a link into the Shopify admin", async () => {
    const record = await db.prisma.syncRecord.findFirstOrThrow({ where: { shop: SHOP, kind: "order" } });
    await db.prisma.syncAttempt.create({
      data: {
        shop: SHOP,
        recordId: record.id,
        ok: false,
        outcome: "server_error",
        httpStatus: 500,
        errorCode: "internal",
        message: "The service had an internal problem (HTTP 500).",
      },
    });
    const entry = await loadLogEntry(db.prisma, SHOP, record.id);
    expect(entry).toMatchObject({ type: "record", adminOrderUrl: `shopify:admin/orders/${record.orderId}` });
    expect(entry?.type === "record" && entry.attempts[0]).toMatchObject({ httpStatus: 500, errorCode: "internal" });
    expect(await loadLogEntry(db.prisma, OTHER, record.id)).toBeNull();
    expect(adminOrderUrl("a-b.myshopify.com", "12")).toBe("shopify:admin/orders/12");
  });
});

describe("CSV export", () => {
  async function readCsv(stream: ReadableStream<Uint8Array>) {
    return new Response(stream).text();
  }

  it("has the same rows as the filtered view, in the same order, and defuses formulas", async () => {
    const f = filter("customer=7000000001&sort=asc");
    const csv = await readCsv(exportLogCsv(db.prisma, SHOP, f, 7));
    const lines = csv.trim().split("\r\n");
    expect(lines[0]).toBe(
      "id,kind,order_name,order_id,external_id,customer_id,customer,created_at,state,resolved,reason,attempts",
    );
    const view = await walkPages(f, 50);
    expect(lines.slice(1).map((l) => l.split(",")[0])).toEqual(view.map((r) => r.id));
    expect(csvField('=HYPERLINK("x")')).toBe(`"'=HYPERLINK(""x"")"`);
    expect(csvField("-1")).toBe("'-1");
    expect(csvField("plain")).toBe("plain");
  });
});
