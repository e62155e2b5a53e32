// One budget for every process on PostgreSQL: the token buckets of ./budget.ts (Continue cart's, the shopper
// routes') held in the database (table BudgetBucket), so N web processes allow what one does, not N times as much.
//
// A request must not cost a database round trip of its own where a budget is hot: a process draws tokens from a
// key's shared bucket in a batch (a twentieth of its burst, at least one) in one statement for every key the
// request names, and spends them locally for LEASE_MS; what it has not spent by then is dropped (the budget errs
// on the side of allowing less, never more). A key found empty is refused locally until its bucket has a token
// again (only time refills a bucket), so a flood is refused without reaching the database. Keys marked `local`
// (a client's address: there are as many as a flood brings, and each would cost a row) stay in this process's
// memory, checked first. With the database slow or away, a process falls back to its own in-memory buckets with
// the same policies (never to no limit) and counts that in shared_budget_fallbacks_total.
import type { PrismaClient } from "@prisma/client";
import { Budget, type BucketPolicy, type BudgetAnswer } from "./budget";
import { sharedBudgetFallbacks } from "./metrics.server";

export interface BudgetEntry {
  key: string;
  policy: BucketPolicy;
  /** This process's own bucket (a client's address), never shared. */
  local?: boolean;
}

/** What the routes take their budgets from: in memory (PGlite, one process) or shared through PostgreSQL. */
export interface Budgets {
  /** One token from every bucket named, or none when any is empty (the wait in ms when refused). */
  take(entries: BudgetEntry[]): Promise<BudgetAnswer>;
}

/** One process's buckets (PGlite: the only process). */
export function memoryBudgets(budget = new Budget()): Budgets {
  return { take: async (entries) => budget.take(entries) };
}

const LEASE_MS = 2_000;
/** Drawn tokens per round trip: a twentieth of the burst, so N processes hold little of it unspent. */
export const batchOf = (policy: BucketPolicy) => Math.max(1, Math.floor(policy.burst / 20));
const DRAW_TIMEOUT_MS = 1_000;
const SWEEP_EVERY_MS = 60_000;

interface Held {
  tokens: number;
  until: number;
  emptyUntil: number;
}

interface Drawn {
  key: string;
  granted: number;
  tokens: number;
}

export interface SharedBudgetOptions {
  now?: () => number;
  /** How many keys each process remembers (least recently used go first). */
  maxKeys?: number;
}

export class SharedBudget implements Budgets {
  private readonly held = new Map<string, Held>();
  /** The draw under way for a key, if any. */
  private readonly drawing = new Map<string, Promise<void>>();
  private readonly local: Budget;
  /** The fallback while the database does not answer: this process's own buckets. */
  private readonly fallback: Budget;
  private readonly now: () => number;
  private readonly maxKeys: number;
  private lastSweep = 0;

  constructor(
    private readonly prisma: PrismaClient,
    options: SharedBudgetOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    this.maxKeys = options.maxKeys ?? 50_000;
    this.local = new Budget({ now: this.now, maxKeys: this.maxKeys });
    this.fallback = new Budget({ now: this.now, maxKeys: this.maxKeys });
  }

  async take(entries: BudgetEntry[]): Promise<BudgetAnswer> {
    const local = entries.filter((e) => e.local);
    const shared = entries.filter((e) => !e.local);
    if (local.length > 0) {
      const answer = this.local.take(local);
      if (!answer.ok) return answer;
    }
    if (shared.length === 0) return { ok: true };
    for (;;) {
      // One draw per key at a time in this process: requests arriving together wait for it and share what it
      // brought, instead of each drawing a batch (which drains the shared bucket and keeps only the last batch).
      const inFlight = shared.flatMap((e) => this.drawing.get(e.key) ?? []);
      if (inFlight.length > 0) {
        await Promise.allSettled(inFlight);
        continue;
      }
      const t = this.now();
      let refusedFor = 0;
      const missing: BudgetEntry[] = [];
      for (const e of shared) {
        const h = this.held.get(e.key);
        if (h && t < h.emptyUntil) refusedFor = Math.max(refusedFor, h.emptyUntil - t);
        else if (!h || h.until <= t || h.tokens < 1) missing.push(e);
      }
      // All or none: a key refused leaves the others' drawn tokens held for the next request.
      if (refusedFor > 0) return { ok: false, retryAfterMs: refusedFor };
      if (missing.length === 0) {
        for (const e of shared) this.held.get(e.key)!.tokens -= 1;
        return { ok: true };
      }
      const drawing = this.draw(missing).then((drawn) => {
        const at = this.now();
        for (const d of drawn) {
          const entry = missing.find((e) => e.key === d.key)!;
          this.remember(d.key, {
            tokens: d.granted,
            until: at + LEASE_MS,
            emptyUntil: d.granted < 1 ? at + Math.max(1, Math.ceil((1 - d.tokens) * entry.policy.refillMs)) : 0,
          });
        }
      });
      for (const e of missing) this.drawing.set(e.key, drawing);
      try {
        await drawing;
      } catch {
        sharedBudgetFallbacks.series().inc();
        return this.fallback.take(shared);
      } finally {
        for (const e of missing) if (this.drawing.get(e.key) === drawing) this.drawing.delete(e.key);
      }
    }
  }

  private remember(key: string, held: Held) {
    this.held.delete(key);
    this.held.set(key, held);
    while (this.held.size > this.maxKeys) this.held.delete(this.held.keys().next().value!);
  }

  /**
   * One statement for every key: each bucket refilled by the time since it was last drawn from, then up to a batch
   * taken (whole tokens only). The proposed row carries the policy and the wanted batch; a new key starts full.
   */
  private async draw(entries: BudgetEntry[]): Promise<Drawn[]> {
    const keys = entries.map((e) => e.key);
    const bursts = entries.map((e) => e.policy.burst);
    const refills = entries.map((e) => e.policy.refillMs);
    const wants = entries.map((e) => Math.min(batchOf(e.policy), e.policy.burst));
    const query = this.prisma.$queryRaw<{ key: string; granted: number; tokens: number }[]>`
      INSERT INTO "BudgetBucket" ("key", "tokens", "burst", "refillMs", "granted", "at")
      SELECT k, b - w, b, r, w, clock_timestamp()
      FROM unnest(${keys}::text[], ${bursts}::float8[], ${refills}::float8[], ${wants}::float8[]) AS i(k, b, r, w)
      ORDER BY k
      ON CONFLICT ("key") DO UPDATE SET
        "granted" = least(EXCLUDED."granted", floor(least(EXCLUDED."burst",
          "BudgetBucket"."tokens" + extract(epoch FROM clock_timestamp() - "BudgetBucket"."at") * 1000 / EXCLUDED."refillMs"))),
        "tokens" = least(EXCLUDED."burst",
          "BudgetBucket"."tokens" + extract(epoch FROM clock_timestamp() - "BudgetBucket"."at") * 1000 / EXCLUDED."refillMs")
          - least(EXCLUDED."granted", floor(least(EXCLUDED."burst",
          "BudgetBucket"."tokens" + extract(epoch FROM clock_timestamp() - "BudgetBucket"."at") * 1000 / EXCLUDED."refillMs"))),
        "burst" = EXCLUDED."burst",
        "refillMs" = EXCLUDED."refillMs",
        "at" = clock_timestamp()
      RETURNING "key", "granted", "tokens"`;
    const rows = await withTimeout(query, DRAW_TIMEOUT_MS);
    this.sweep();
    return rows.map((r) => ({ key: r.key, granted: Number(r.granted), tokens: Number(r.tokens) }));
  }

  /** Now and then: rows whose bucket has refilled are the same as no row. */
  private sweep() {
    const t = this.now();
    if (t - this.lastSweep < SWEEP_EVERY_MS) return;
    this.lastSweep = t;
    void this.prisma.$executeRaw`
      DELETE FROM "BudgetBucket"
      WHERE "at" < clock_timestamp() - ("burst" - "tokens") * "refillMs" * interval '1 millisecond'`.catch(() => {});
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error("the shared budget did not answer in time")), ms);
  });
  promise.catch(() => {}); // a late failure after the timeout is the fallback's already
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

let processBudgets: Budgets = memoryBudgets();

/** The budgets of this process: memory until the web process says its database is shared (useSharedBudgets). */
export const budgets = (): Budgets => processBudgets;

/** Called once by the web process on PostgreSQL (app/runtime/web.server.ts); tests pass their own. */
export function setBudgets(next: Budgets): void {
  processBudgets = next;
}

/**
 * shop/redact and customers/redact: the shared buckets named after the shop or one of its customers go (a key holds
 * the shop's domain and a customer's id in clear: `shop:<shop>`, `<action>:shop:<shop>`,
 * `<action>:customer:<shop>:<customer id>`). Matched exactly, never as a pattern a domain could widen.
 */
export async function forgetBudgetsOf(
  db: Pick<PrismaClient, "$executeRaw">,
  who: { shop: string; customerId?: string },
): Promise<void> {
  if (who.customerId !== undefined) {
    const customer = `:customer:${who.shop}:${who.customerId}`;
    await db.$executeRaw`DELETE FROM "BudgetBucket" WHERE right("key", ${customer.length}) = ${customer}`;
    return;
  }
  const shopKey = `shop:${who.shop}`;
  const customers = `:customer:${who.shop}:`;
  await db.$executeRaw`
    DELETE FROM "BudgetBucket"
    WHERE "key" = ${shopKey} OR right("key", ${shopKey.length + 1}) = ${`:${shopKey}`} OR strpos("key", ${customers}) > 0`;
}
