// Settings → Shopify Flow (intent "flow"): whether failed imports start the merchant's Flow workflows
// (app/sync/flow-trigger.server.ts).
import type { PrismaClient } from "@prisma/client";
import { getFlowTriggerEnabled, saveFlowTriggerEnabled } from "../../sync/flow-trigger.server";

export type FlowSaved = { intent: "flow"; enabled: boolean };

export const loadFlowCard = (prisma: PrismaClient, shop: string): Promise<boolean> =>
  getFlowTriggerEnabled(prisma, shop);

export async function saveFlowCard(
  prisma: PrismaClient,
  shop: string,
  form: FormData,
): Promise<{ data: FlowSaved; status: number }> {
  return {
    data: { intent: "flow", enabled: await saveFlowTriggerEnabled(prisma, shop, form.get("flowTriggerEnabled")) },
    status: 200,
  };
}
