// Settings → Continue cart (intent "handoff"): the storefront button's switch and the claim link's lifetime
// (app/handoff/settings.server.ts).
import type { PrismaClient } from "@prisma/client";
import { getHandoffSettingsView, saveHandoffSettings, type HandoffSettingsView } from "../../handoff/settings.server";

export type { HandoffSettingsView } from "../../handoff/settings.server";

export type ContinueCartSaved =
  | { intent: "handoff"; ok: true; handoff: HandoffSettingsView }
  | { intent: "handoff"; ok: false; fieldErrors: Partial<Record<keyof HandoffSettingsView, string>> };

export const loadContinueCartCard = (prisma: PrismaClient, shop: string): Promise<HandoffSettingsView> =>
  getHandoffSettingsView(prisma, shop);

export async function saveContinueCartCard(
  prisma: PrismaClient,
  shop: string,
  form: FormData,
): Promise<{ data: ContinueCartSaved; status: number }> {
  const result = await saveHandoffSettings(prisma, shop, {
    cartButtonEnabled: form.get("cartButtonEnabled") ?? undefined,
    handoffExpirySeconds: form.get("handoffExpirySeconds") ?? undefined,
  });
  return result.ok
    ? { data: { intent: "handoff", ok: true, handoff: result.view }, status: 200 }
    : { data: { intent: "handoff", ok: false, fieldErrors: result.fieldErrors }, status: 422 };
}
