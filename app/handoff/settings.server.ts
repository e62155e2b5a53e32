// The merchant's Continue cart settings: the button's on/off switch and how long a claim link lives. Kept on
// ShopSettings beside the service settings; validated here so the settings page stays thin.
import type { PrismaClient } from "@prisma/client";
import { z } from "zod";
import { loadServiceSettingsOrNull } from "../connections/settings-loader.server";
import { readHandoffRow, readSections, writeSection } from "../db/shop-settings.server";
import type { HandoffSettings } from "./flow.server";

// The service accepts 60 s to 7 days (expires_in_seconds); 30 minutes is long enough to sign in on the other side.
export const EXPIRY_MIN_SECONDS = 60;
export const EXPIRY_MAX_SECONDS = 604_800;
export const DEFAULT_EXPIRY_SECONDS = 1800;

export interface HandoffSettingsView {
  cartButtonEnabled: boolean;
  handoffExpirySeconds: number;
}

const FormSchema = z.object({
  cartButtonEnabled: z.enum(["on", "off"], { error: "Choose whether the button is on or off" }),
  handoffExpirySeconds: z.coerce
    .number({ error: "Claim link lifetime must be a number of seconds" })
    .int({ error: "Claim link lifetime must be a whole number of seconds" })
    .min(EXPIRY_MIN_SECONDS, { error: `Claim link lifetime must be at least ${EXPIRY_MIN_SECONDS} seconds` })
    .max(EXPIRY_MAX_SECONDS, { error: `Claim link lifetime must be at most ${EXPIRY_MAX_SECONDS} seconds (7 days)` }),
});

export async function getHandoffSettingsView(prisma: PrismaClient, shop: string): Promise<HandoffSettingsView> {
  const row = await readSections(prisma, shop, "handoff");
  return {
    cartButtonEnabled: row?.cartButtonEnabled ?? true,
    handoffExpirySeconds: row?.handoffExpirySeconds ?? DEFAULT_EXPIRY_SECONDS,
  };
}

export type SaveHandoffResult =
  | { ok: true; view: HandoffSettingsView }
  | { ok: false; fieldErrors: Partial<Record<keyof HandoffSettingsView, string>> };

export async function saveHandoffSettings(
  prisma: PrismaClient,
  shop: string,
  input: { cartButtonEnabled?: unknown; handoffExpirySeconds?: unknown },
): Promise<SaveHandoffResult> {
  const parsed = FormSchema.safeParse({
    cartButtonEnabled: input.cartButtonEnabled ?? "off", // an unticked checkbox sends nothing
    handoffExpirySeconds:
      typeof input.handoffExpirySeconds === "string"
        ? input.handoffExpirySeconds.trim().slice(0, 20)
        : input.handoffExpirySeconds,
  });
  if (!parsed.success) {
    const fieldErrors: Partial<Record<keyof HandoffSettingsView, string>> = {};
    for (const issue of parsed.error.issues) fieldErrors[issue.path[0] as keyof HandoffSettingsView] ??= issue.message;
    return { ok: false, fieldErrors };
  }
  const data = {
    cartButtonEnabled: parsed.data.cartButtonEnabled === "on",
    handoffExpirySeconds: parsed.data.handoffExpirySeconds,
  };
  await writeSection(prisma, shop, "handoff", data);
  return { ok: true, view: data };
}

/**
 * Everything the flow needs from the settings, read fresh for each request (a switched-off button or a replaced
 * secret applies from the next click on) in one statement, in SQL like the click path's other statements.
 */
export async function loadHandoffSettings(prisma: PrismaClient, shop: string): Promise<HandoffSettings> {
  const row = await readHandoffRow(prisma, shop);
  return {
    enabled: row?.cartButtonEnabled ?? true,
    expirySeconds: row?.handoffExpirySeconds ?? DEFAULT_EXPIRY_SECONDS,
    service: await loadServiceSettingsOrNull(prisma, shop, { row }),
  };
}
