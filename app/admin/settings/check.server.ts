// Settings → Check connection (intent "check"): the service's own check of the saved settings
// (app/connections/settings-check.server.ts), its outcome kept for the home page's setup guide (../home.server.ts).
import type { PrismaClient } from "@prisma/client";
import { checkServiceConnection, type CheckReport } from "../../connections/settings-check.server";
import { recordConnectionCheck } from "../home.server";

export type { CheckReport } from "../../connections/settings-check.server";

export type ConnectionChecked = { intent: "check"; check: CheckReport };

export async function checkConnectionCard(
  prisma: PrismaClient,
  shop: string,
): Promise<{ data: ConnectionChecked; status: number }> {
  const check = await checkServiceConnection(prisma, shop);
  await recordConnectionCheck(prisma, shop, check);
  return { data: { intent: "check", check }, status: 200 };
}
