// Backfill progress (past orders fetched when a customer connects), for the home page and the sync log.
import type { PrismaClient } from "@prisma/client";
import { customerLabel, customerNames } from "./log.server";

export interface BackfillView {
  id: string;
  /** The customer's name or email when their grant carries one. */
  customer: string;
  days: number;
  status: string;
  total: number;
  queued: number;
  /** 0 to 100. */
  percent: number;
  error: string | null;
  createdAt: string;
}

/** The shop's latest backfills with their progress. */
export async function loadBackfills(prisma: PrismaClient, shop: string, take = 5): Promise<BackfillView[]> {
  const backfills = await prisma.backfill.findMany({ where: { shop }, orderBy: { createdAt: "desc" }, take });
  const names = await customerNames(
    prisma,
    shop,
    backfills.map((b) => b.customerId),
  );
  return backfills.map((b) => ({
    id: b.id,
    customer: customerLabel(b.customerId, names),
    days: b.days,
    status: b.status,
    total: b.total,
    queued: b.queued,
    percent: b.status === "done" ? 100 : b.total > 0 ? Math.min(100, Math.round((100 * b.queued) / b.total)) : 0,
    error: b.error,
    createdAt: b.createdAt.toISOString(),
  }));
}
