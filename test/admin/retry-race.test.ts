// "Retry now" clicked twice at once (two tabs, a double click, the sync log and the order page block): one click
// queues the import again and says so; the other says it is already queued. Never "Queued again" twice.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { retryRecord } from "~/admin/log-actions.server";
import { createTestDatabase, type TestDatabase } from "../helpers/db";
import { SHOP } from "../sync/support";

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
}, 120_000);
afterAll(async () => {
  await db?.close();
});

const QUEUED = "Queued again. The state updates once it has run.";

describe("concurrent Retry now", () => {
  it("answers 'Queued again' once, whatever the interleaving", async () => {
    for (let round = 0; round < 60; round++) {
      const record = await db.prisma.syncRecord.create({
        data: { shop: SHOP, kind: "order", externalId: `race-${round}`, orderId: `${round}`, state: "failed" },
      });
      await db.prisma.job.create({
        data: { shop: SHOP, kind: "order", payload: {}, status: "failed", recordId: record.id, attempts: 12 },
      });
      const answers = await Promise.all(Array.from({ length: 4 }, () => retryRecord(db.prisma, SHOP, record.id)));
      const messages = answers.map((a) => a.message);
      expect(
        messages.filter((m) => m === QUEUED),
        JSON.stringify(messages),
      ).toHaveLength(1);
      expect(answers.every((a) => a.ok)).toBe(true);
      expect(await db.prisma.job.count({ where: { recordId: record.id, status: "queued" } })).toBe(1);
    }
  });
});
