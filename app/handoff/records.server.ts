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

export function recordPending(prisma: PrismaClient, facts: RecordFacts) {
  return prisma.cartHandoff.create({ data: { ...data(facts), state: "pending" } });
}

export function recordCreated(
  prisma: PrismaClient,
  id: string,
  result: { handoffId: string; claimUrl: string; expiresAt: Date; attempts: number },
) {
  return prisma.cartHandoff.update({ where: { id }, data: { state: "created", ...result } });
}

export function recordFailed(prisma: PrismaClient, id: string, reasonCode: string, reason: string, attempts: number) {
  return prisma.cartHandoff.update({ where: { id }, data: { state: "failed", reasonCode, reason, attempts } });
}

/** The newest created handoff for this cart content that is still valid for at least `marginMs`. */
export function findReusable(prisma: PrismaClient, shop: string, cartTokenHash: string, contentHash: string, validUntil: Date) {
  return prisma.cartHandoff.findFirst({
    where: { shop, cartTokenHash, contentHash, state: "created", expiresAt: { gt: validUntil }, claimUrl: { not: null } },
    orderBy: { createdAt: "desc" },
  });
}

/** How many handoffs were created for this cart content before (all expired when none is reusable). */
export function countCreated(prisma: PrismaClient, shop: string, cartTokenHash: string, contentHash: string) {
  return prisma.cartHandoff.count({ where: { shop, cartTokenHash, contentHash, state: "created" } });
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
