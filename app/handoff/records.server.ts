// CartHandoff rows: one per request that got past the budget, with its state and, when it failed, the reason in
// plain words (for the merchant) and as a code. listHandoffs is what the admin's log page loads.
import { randomUUID } from "node:crypto";
import { sha256 } from "../lib/hash";
import type { PrismaClient } from "@prisma/client";
import { ts } from "../db/sql.server";
import type { ResolvedLine } from "./resolver.server";

export type HandoffState = "pending" | "created" | "failed";

export { sha256 };

export interface RecordFacts {
  shop: string;
  customerId: string | null;
  cartTokenHash: string;
  contentHash?: string;
  externalCartId?: string;
  idempotencyKey?: string;
  currency?: string;
  lines?: ResolvedLine[];
  lineCount?: number;
}

type Outcome =
  | { state: "created"; handoffId: string; claimUrl: string; expiresAt: Date; attempts: number }
  | { state: "failed"; reasonCode: string; reason: string; attempts: number };

// The click path's statements are written in SQL: through Prisma's query builder each one cost several times as
// much, most of the app's own time per handoff (docs/decisions/0002). The admin's reads below stay on Prisma.
function insertRecord(prisma: PrismaClient, facts: RecordFacts, outcome: Outcome) {
  const lines = facts.lines ?? [];
  const total = lines.reduce((sum, l) => sum + BigInt(l.unitPriceMinor) * BigInt(l.quantity), 0n);
  const created = outcome.state === "created" ? outcome : null;
  const failed = outcome.state === "failed" ? outcome : null;
  const now = ts(new Date());
  return prisma.$executeRaw`
    INSERT INTO "CartHandoff" (id, shop, "customerId", "cartTokenHash", "contentHash", "externalCartId", "idempotencyKey",
      "lineCount", "totalMinor", currency, lines, state, reason, "reasonCode", "handoffId", "claimUrl", "expiresAt",
      attempts, "createdAt", "updatedAt")
    VALUES (${randomUUID()}, ${facts.shop}, ${facts.customerId}::text, ${facts.cartTokenHash}, ${facts.contentHash ?? ""},
      ${facts.externalCartId ?? ""}, ${facts.idempotencyKey ?? ""}, ${facts.lineCount ?? lines.length}::int, ${total}::bigint,
      ${facts.currency ?? ""}, ${JSON.stringify(lines)}::jsonb, ${outcome.state}, ${failed?.reason ?? null}::text,
      ${failed?.reasonCode ?? null}::text, ${created?.handoffId ?? null}::text, ${created?.claimUrl ?? null}::text,
      ${created ? ts(created.expiresAt) : null}, ${outcome.attempts}::int, ${now}, ${now})`;
}

/** A request refused before anything was sent to the service. */
export function recordRefusal(prisma: PrismaClient, facts: RecordFacts, reasonCode: string, reason: string) {
  return insertRecord(prisma, facts, { state: "failed", reasonCode, reason, attempts: 0 });
}

/** A request that reached the service: created with its claim URL, or failed with the service's reason. */
export function recordOutcome(prisma: PrismaClient, facts: RecordFacts, outcome: Outcome) {
  return insertRecord(prisma, facts, outcome);
}

/**
 * The handoffs created before for this cart content, newest first, in one query: the newest is reused while it
 * stays valid until `validUntil`; their count is the key's generation (an expired one is never reused).
 */
export async function priorHandoffs(
  prisma: PrismaClient,
  shop: string,
  cartTokenHash: string,
  contentHash: string,
  validUntil: Date,
) {
  const rows = await prisma.$queryRaw<{ claimUrl: string | null; valid: boolean | null }[]>`
    SELECT "claimUrl", "expiresAt" > ${ts(validUntil)} AS valid FROM "CartHandoff"
    WHERE shop = ${shop} AND "cartTokenHash" = ${cartTokenHash} AND "contentHash" = ${contentHash} AND state = 'created'
    ORDER BY "createdAt" DESC, id`;
  const newest = rows[0];
  return { reusableClaimUrl: newest?.valid && newest.claimUrl ? newest.claimUrl : null, generation: rows.length };
}

export interface HandoffListItem {
  id: string;
  createdAt: string;
  state: HandoffState;
  lineCount: number;
  totalMinor: number;
  currency: string;
  expiresAt: string | null;
  reason: string | null;
  reasonCode: string | null;
  customerId: string | null;
  attempts: number;
}

/** The shop's handoffs, newest first, for the admin (time, lines, total, state, claim expiry, error). */
export async function listHandoffs(
  prisma: PrismaClient,
  shop: string,
  options: { take?: number; before?: Date; state?: HandoffState } = {},
): Promise<HandoffListItem[]> {
  const rows = await prisma.cartHandoff.findMany({
    where: {
      shop,
      ...(options.state ? { state: options.state } : {}),
      ...(options.before ? { createdAt: { lt: options.before } } : {}),
    },
    orderBy: { createdAt: "desc" },
    take: Math.min(Math.max(options.take ?? 50, 1), 200),
  });
  // The claim URL and hashes stay server-side: the claim URL is a bearer link to the shopper's cart.
  return rows.map((r) => ({
    id: r.id,
    createdAt: r.createdAt.toISOString(),
    state: r.state as HandoffState,
    lineCount: r.lineCount,
    totalMinor: Number(r.totalMinor),
    currency: r.currency,
    expiresAt: r.expiresAt?.toISOString() ?? null,
    reason: r.reason,
    reasonCode: r.reasonCode,
    customerId: r.customerId,
    attempts: r.attempts,
  }));
}
