// The budget shared by every process (app/lib/shared-budget.server.ts), two instances standing for two processes on
// one database (PostgreSQL with TEST_DATABASE_URL, PGlite otherwise): one budget between them, drawn in batches so
// a hot key does not cost a round trip per request, refusals answered without the database once a key is empty, a
// client's address kept per process, and a database that does not answer met with this process's own buckets.
import type { PrismaClient } from "@prisma/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { batchOf, SharedBudget } from "~/lib/shared-budget.server";
import { createTestDatabase, type TestDatabase } from "../helpers/db";

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase();
});

afterAll(async () => {
  await db?.close();
});

/** The database client, counting the budget's draws (its one raw query). */
function counted(prisma: PrismaClient) {
  const calls = { draws: 0 };
  const client = new Proxy(prisma, {
    get(target, name) {
      if (name === "$queryRaw")
        return (...args: unknown[]) => {
          calls.draws++;
          return (target.$queryRaw as (...a: unknown[]) => unknown).apply(target, args);
        };
      const value = Reflect.get(target, name) as unknown;
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { client, calls };
}

const shopPolicy = { burst: 10, refillMs: 60_000 };

describe("one budget for every process", () => {
  it("two processes taking turns are let through the burst once, not twice", async () => {
    const a = new SharedBudget(db.prisma);
    const b = new SharedBudget(db.prisma);
    const answers = [];
    for (let i = 0; i < 30; i++)
      answers.push(await (i % 2 ? a : b).take([{ key: "test:shop:one", policy: shopPolicy }]));
    expect(answers.filter((x) => x.ok)).toHaveLength(shopPolicy.burst);
    const refused = answers.find((x) => !x.ok);
    expect(refused).toMatchObject({ ok: false });
    expect(refused && !refused.ok && refused.retryAfterMs).toBeGreaterThan(0);
  });

  it("a hot key is drawn in batches: 600 requests, one round trip per batch", async () => {
    const policy = { burst: 1_200, refillMs: 5 };
    const { client, calls } = counted(db.prisma);
    const budget = new SharedBudget(client);
    for (let i = 0; i < 600; i++)
      expect((await budget.take([{ key: "test:shop:hot", policy }])).ok, `request ${i}`).toBe(true);
    expect(batchOf(policy)).toBe(60);
    expect(calls.draws).toBe(600 / 60);
  });

  it("an empty key is refused without the database until it has a token again; all or none", async () => {
    const { client, calls } = counted(db.prisma);
    const budget = new SharedBudget(client);
    const empty = { key: "test:customer:empty", policy: { burst: 1, refillMs: 60_000 } };
    const other = { key: "test:shop:other", policy: { burst: 100, refillMs: 1_000 } };
    expect((await budget.take([empty, other])).ok).toBe(true);
    const drawsBefore = calls.draws;
    for (let i = 0; i < 50; i++) expect((await budget.take([empty, other])).ok).toBe(false);
    expect(calls.draws - drawsBefore).toBe(1); // the one draw that found it empty
    // The other key's tokens were not spent by the refusals.
    for (let i = 0; i < batchOf(other.policy) - 1; i++) expect((await budget.take([other])).ok).toBe(true);
  });

  it("a client's address stays in each process: no row, and each process has its own", async () => {
    const a = new SharedBudget(db.prisma);
    const b = new SharedBudget(db.prisma);
    const address = { key: "test:ip:local", policy: { burst: 2, refillMs: 60_000 }, local: true };
    for (const budget of [a, b]) {
      expect((await budget.take([address])).ok).toBe(true);
      expect((await budget.take([address])).ok).toBe(true);
      expect((await budget.take([address])).ok).toBe(false);
    }
    expect(await db.prisma.budgetBucket.count({ where: { key: address.key } })).toBe(0);
  });

  it("a database that does not answer: this process's own buckets, never no limit", async () => {
    const down = new Proxy(db.prisma, {
      get: (target, name) =>
        name === "$queryRaw" ? () => Promise.reject(new Error("connection refused")) : Reflect.get(target, name),
    });
    const budget = new SharedBudget(down);
    const answers = [];
    for (let i = 0; i < 20; i++) answers.push(await budget.take([{ key: "test:shop:down", policy: shopPolicy }]));
    expect(answers.filter((x) => x.ok)).toHaveLength(shopPolicy.burst);
  });
});
