// Settings → the service card (intent "save"): the merchant's service addresses and credentials, secrets
// write-only (app/connections/settings-store.server.ts); a save wakes the imports that waited for settings. Only the
// browser-safe view goes back to the page.
import type { PrismaClient } from "@prisma/client";
import {
  CONFIRM_ORIGIN_FIELD,
  SETTINGS_FIELDS,
  type FieldErrors,
  type FieldProblems,
} from "../../connections/settings-form.server";
import { saveSettings } from "../../connections/settings-store.server";
import { getSettingsView, type SettingsView } from "../../connections/settings-view.server";
import { onSettingsSaved } from "../../sync/on-settings-saved.server";

export type { FieldErrors, FieldProblems } from "../../connections/settings-form.server";
export type { SecretStatus, SettingsView } from "../../connections/settings-view.server";

export type ServiceSaved =
  | { intent: "save"; ok: true; settings: SettingsView; changedSecrets: string[] }
  | {
      intent: "save";
      ok: false;
      fieldErrors: FieldErrors;
      fieldProblems: FieldProblems;
      values: Partial<SettingsView>;
      originChange?: { grants: number; message: string };
    };

export const loadServiceCard = (prisma: PrismaClient, shop: string): Promise<SettingsView> =>
  getSettingsView(prisma, shop);

export async function saveServiceCard(
  prisma: PrismaClient,
  shop: string,
  form: FormData,
): Promise<{ data: ServiceSaved; status: number }> {
  const input = Object.fromEntries(
    [...SETTINGS_FIELDS, CONFIRM_ORIGIN_FIELD].map((f) => [f, form.get(f) ?? undefined]),
  );
  const result = await saveSettings(prisma, shop, input);
  if (!result.ok) {
    return {
      data: {
        intent: "save",
        ok: false,
        fieldErrors: result.fieldErrors,
        fieldProblems: result.fieldProblems,
        values: result.values,
        originChange: result.originChange,
      },
      status: 422,
    };
  }
  await onSettingsSaved(prisma, shop);
  return {
    data: { intent: "save", ok: true, settings: result.view, changedSecrets: result.changedSecrets },
    status: 200,
  };
}
