// CartHandoff rows: one per request that got past the budget, with its state and, when it failed, the reason in
// plain words (for the merchant) and as a code. listHandoffs is what the admin's log page loads.
import { createHash } from "node:crypto";
import type { Prisma, PrismaClient } from "@prisma/client";
import type { ResolvedLine } from "./resolver.server";

export type HandoffState = "pending" | "created" | "failed";

export const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

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

function data(facts: RecordFacts) {
  const lines = facts.lines ?? [];
  return {
    shop: facts.shop,
    customerId: facts.customerId,
    cartTokenHash: facts.cartTokenHash,
    contentHash: facts.contentHash ?? "",
    externalCartId: facts.externalCartId ?? "",
    idempotencyKey: facts.idempotencyKey ?? "",
    lineCount: facts.lineCount ?? lines.length,
    totalMinor: BigInt(lines.reduce((sum, l) => sum + l.unitPriceMinor * l.quantity, 0)),
    currency: facts.currency ?? "",
    lines: lines as unknown as Prisma.InputJsonValue,
  };
}

/** A request refused before anything was sent to the service. */
export function recordRefusal(prisma: PrismaClient, facts: RecordFacts, reasonCode: string, reason: string) {
  return prisma.cartHandoff.create({ data: { ...data(facts), state: "failed", reasonCode, reason } });
}

/** A request that reached the service: created with its claim URL, or failed with the service's reason. */
export function recordOutcome(
  prisma: PrismaClient,
  facts: RecordFacts,
  result:
    | { state: "created"; handoffId: string; claimUrl: string; expiresAt: Date; attempts: number }
    | { state: "failed"; reasonCode: string; reason: string; attempts: number },
) {
  return prisma.cartHandoff.create({ data: { ...data(facts), ...result } });
}

/**
 * The handoffs created before for this cart content, newest first, in one query: the newest is reused while it
 * stays valid until `validUntil`; their count is the key's generation (an expired one is never reused).
 */
export async function priorHandoffs(prisma: PrismaClient, shop: string, cartTokenHash: string, contentHash: string, validUntil: Date) {
  const rows = await prisma.cartHandoff.findMany({
    where: { shop, cartTokenHash, contentHash, state: "created" },
    orderBy: { createdAt: "desc" },
    select: { claimUrl: true, expiresAt: true },
  });
  const newest = rows[0];
  const reusable = newest?.claimUrl && newest.expiresAt && newest.expiresAt > validUntil ? newest.claimUrl : null;
  return { reusableClaimUrl: reusable, generation: rows.length };
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
    where: { shop, ...(options.state ? { state: options.state } : {}), ...(options.before ? { createdAt: { lt: options.before } } : {}) },
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
