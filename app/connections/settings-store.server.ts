// Saving the settings form: validated (settings-form.server.ts), secrets sealed to their shop and column, and the
// connected customers told to reconnect when the service's origins move (confirmed by the merchant first).
import type { PrismaClient } from "@prisma/client";
import { ORIGIN_CHANGED_REASON, policyFromEnv, serviceOrigins, type AddressPolicy } from "../service/client.server";
import { bindings, sealFor, type Keyring } from "../crypto/secret-box.server";
import { readSections, writeSection } from "../db/shop-settings.server";
import {
  checkSettingsForm,
  CONFIRM_ORIGIN_FIELD,
  type FieldErrors,
  type FieldProblems,
  type FormValues,
  type SettingsInput,
} from "./settings-form.server";
import { toView, type SettingsView } from "./settings-view.server";

export type SaveResult =
  | { ok: true; view: SettingsView; changedSecrets: ("clientSecret" | "signingSecret")[]; grantsToReconnect: number }
  | {
      ok: false;
      fieldErrors: FieldErrors;
      fieldProblems: FieldProblems;
      values: FormValues;
      /** Set when the save would move connected customers' tokens' service: saving again needs `confirmOriginChange`. */
      originChange?: { grants: number; message: string };
    };

/** Validates and stores the settings form. Field errors come back keyed by field name, in plain words. */
export async function saveSettings(
  prisma: PrismaClient,
  shop: string,
  input: SettingsInput,
  options: { now?: Date; keyring?: Keyring; policy?: AddressPolicy } = {},
): Promise<SaveResult> {
  const now = options.now ?? new Date();
  const existing = await readSections(prisma, shop, "service");
  const checked = checkSettingsForm(input, existing, options.policy ?? policyFromEnv());
  if (!checked.ok) return checked;
  const { data, values } = checked;

  // Connected customers' tokens are bound to the service origins that issued them (service/origins.server.ts):
  // moving any of them means every connected customer must reconnect. The merchant is told before it happens.
  const origins = serviceOrigins(data);
  const grantsToReconnect =
    existing && serviceOrigins(existing) !== origins ? await prisma.customerGrant.count({ where: { shop } }) : 0;
  if (grantsToReconnect > 0 && input[CONFIRM_ORIGIN_FIELD] !== "true") {
    const message =
      `${grantsToReconnect} connected customer${grantsToReconnect === 1 ? "" : "s"} will have to reconnect: their tokens ` +
      "were issued by the current service address and are never sent to another one. Save again to confirm.";
    return {
      ok: false,
      fieldErrors: {},
      fieldProblems: {},
      values,
      originChange: { grants: grantsToReconnect, message },
    };
  }
  const changedSecrets: ("clientSecret" | "signingSecret")[] = [];
  const secretData: Record<string, string | Date> = {};
  // A secret left empty keeps the stored one; a new one is sealed to its shop and column.
  for (const secret of ["clientSecret", "signingSecret"] as const) {
    if (!data[secret]) continue;
    secretData[`${secret}Enc`] = sealFor(bindings.shopSettings(shop, `${secret}Enc`), data[secret], options.keyring);
    secretData[`${secret}ChangedAt`] = now;
    changedSecrets.push(secret);
  }
  const plain = {
    environment: data.environment,
    baseUrl: data.baseUrl,
    sandboxBaseUrl: data.sandboxBaseUrl,
    authUrl: data.authUrl,
    clientId: data.clientId,
  };
  const row = await writeSection(prisma, shop, "service", { ...plain, ...secretData });
  if (grantsToReconnect > 0) {
    await prisma.customerGrant.updateMany({
      where: { shop, OR: [{ boundOrigins: null }, { boundOrigins: { not: origins } }] },
      data: { status: "needs_reconnect", statusReason: ORIGIN_CHANGED_REASON },
    });
  }
  return { ok: true, view: toView(row), changedSecrets, grantsToReconnect };
}
