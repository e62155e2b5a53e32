// Settings → Data retention (intent "retention"): how long stored Shopify data is kept
// (app/privacy/retention.server.ts).
import type { PrismaClient } from "@prisma/client";
import { getRetentionDays, saveRetentionDays, type RetentionResult } from "../../privacy/retention.server";

export type { RetentionResult } from "../../privacy/retention.server";

export type RetentionSaved = { intent: "retention"; result: RetentionResult };

export const loadRetentionCard = (prisma: PrismaClient, shop: string): Promise<number> =>
  getRetentionDays(prisma, shop);

export async function saveRetentionCard(
  prisma: PrismaClient,
  shop: string,
  form: FormData,
): Promise<{ data: RetentionSaved; status: number }> {
  const result = await saveRetentionDays(prisma, shop, form.get("retentionDays"));
  return { data: { intent: "retention", result }, status: result.ok ? 200 : 422 };
}
