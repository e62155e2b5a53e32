// Settings → Data retention (intent "retention"): how long stored Shopify data is kept
// (app/privacy/retention.server.ts).
import type { PrismaClient } from "@prisma/client";
import {
  getRetentionDays,
  MAX_RETENTION_DAYS,
  MIN_RETENTION_DAYS,
  saveRetentionDays,
  type RetentionResult,
} from "../../privacy/retention.server";

export type { RetentionResult } from "../../privacy/retention.server";

/** `bounds`: what the field allows, for the page to say in the admin's language. */
export type RetentionSaved = { intent: "retention"; result: RetentionResult; bounds: { min: number; max: number } };

export const loadRetentionCard = (prisma: PrismaClient, shop: string): Promise<number> =>
  getRetentionDays(prisma, shop);

export async function saveRetentionCard(
  prisma: PrismaClient,
  shop: string,
  form: FormData,
): Promise<{ data: RetentionSaved; status: number }> {
  const result = await saveRetentionDays(prisma, shop, form.get("retentionDays"));
  const bounds = { min: MIN_RETENTION_DAYS, max: MAX_RETENTION_DAYS };
  return { data: { intent: "retention", result, bounds }, status: result.ok ? 200 : 422 };
}
