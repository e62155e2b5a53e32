// The merchant's service settings: validation of the settings form, storage with encrypted secrets, the
// browser-safe view (secrets only as "set, changed on <date>"), and the decrypted settings the client takes.
// Nothing here caches: every request reads the row again, so a replaced secret is used from the next request on.
import type { PrismaClient } from "@prisma/client";
import type { Db } from "../db/sql.server";
import { z } from "zod";
import {
  checkConnection,
  ORIGIN_CHANGED_REASON,
  policyFromEnv,
  refreshTokens,
  serviceOrigins,
  serviceUrlProblem,
  urlProblemText,
  type AddressPolicy,
  type CheckFinding,
  type UrlProblem,
  type ServiceDepsOverrides,
  type ServiceSettings,
} from "../service/client.server";
import { bindings, openFor, sealFor, SecretBoxError, type Keyring } from "../crypto/secret-box.server";
import {
  readSections,
  readServiceRow,
  writeSection,
  type Section,
  type ServiceSettingsRow,
} from "../db/shop-settings.server";

export const SETTINGS_FIELDS = [
  "environment",
  "baseUrl",
  "sandboxBaseUrl",
  "authUrl",
  "clientId",
  "clientSecret",
  "signingSecret",
] as const;
export type SettingsField = (typeof SETTINGS_FIELDS)[number];
export type FieldErrors = Partial<Record<SettingsField, string>>;

/**
 * What is wrong with a field, as a code the admin words in its language (FieldErrors holds the same in English,
 * for the API and logs). URL problems are UrlProblem's codes; `changed` names the addresses a secret belonged to.
 */
export type FieldProblem = {
  code:
    | "required"
    | "too_long"
    | "too_long_max"
    | "control_char"
    | "environment"
    | "secret_again_auth"
    | "secret_again_base"
    | UrlProblem["code"];
  host?: string;
  kind?: string;
  max?: number;
  changed?: ("baseUrl" | "sandboxBaseUrl")[];
};
export type FieldProblems = Partial<Record<SettingsField, FieldProblem>>;

const FIELD_LABELS: Record<SettingsField, string> = {
  environment: "Environment",
  baseUrl: "Base URL",
  sandboxBaseUrl: "Sandbox base URL",
  authUrl: "Auth URL",
  clientId: "Client ID",
  clientSecret: "Client secret",
  signingSecret: "Signing secret",
};

/** A field's problem in English. */
function problemText(field: SettingsField, p: FieldProblem): string {
  const label = FIELD_LABELS[field];
  switch (p.code) {
    case "required":
      return `${label} is required`;
    case "too_long":
      return `${label} is too long`;
    case "too_long_max":
      return `${label} is too long (at most ${p.max} characters)`;
    case "control_char":
      return `${label} must not contain a control character`;
    case "environment":
      return "Environment must be sandbox or production";
    case "secret_again_auth":
      return "Enter the client secret again: the Auth URL changed";
    case "secret_again_base":
      return `Enter the signing secret again: the ${(p.changed ?? []).map((f) => FIELD_LABELS[f].replace("Base", "base").replace("Sandbox", "sandbox")).join(" and ")} changed`;
    default:
      return urlProblemText(p as UrlProblem, label);
  }
}

// zod carries a field's problem as its issue message (JSON), read back in saveSettings.
const problem = (p: FieldProblem) => JSON.stringify(p);

export interface SecretStatus {
  set: boolean;
  /** ISO date-time of the last change, null when never set. */
  changedAt: string | null;
}

/** What the settings page may show. Contains no secret material, by construction. */
export interface SettingsView {
  configured: boolean;
  environment: "sandbox" | "production";
  baseUrl: string;
  sandboxBaseUrl: string;
  authUrl: string;
  clientId: string;
  clientSecret: SecretStatus;
  signingSecret: SecretStatus;
}

// A NUL cannot be stored in a PostgreSQL text column (the write would fail with a 500); no other control character
// belongs in an address or an id either.
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const hasControlChar = (s: string) => /[\u0000-\u001f\u007f]/.test(s);

// https, no credentials, query or fragment, not a private/loopback/link-local address (address-policy.server.ts;
// every connection is checked again when it is made).
const serviceUrl = (policy: AddressPolicy) =>
  z
    .string({ error: problem({ code: "required" }) })
    .trim()
    .min(1, { error: problem({ code: "required" }) })
    .max(2048, { error: problem({ code: "too_long" }) })
    .refine((s) => !hasControlChar(s), { error: problem({ code: "control_char" }), abort: true })
    .superRefine((s, ctx) => {
      const found = serviceUrlProblem(s, policy);
      if (found) ctx.addIssue({ code: "custom", message: problem(found) });
    });

// Secrets are write-only: an empty field means "keep the stored one". Whether one is required is decided below.
const secretInput = () =>
  z
    .string()
    .max(4096, { error: problem({ code: "too_long_max", max: 4096 }) })
    .optional()
    .default("");

const settingsFormSchema = (policy: AddressPolicy) =>
  z.object({
    environment: z.enum(["sandbox", "production"], { error: problem({ code: "environment" }) }),
    baseUrl: serviceUrl(policy),
    sandboxBaseUrl: serviceUrl(policy),
    authUrl: serviceUrl(policy),
    clientId: z
      .string({ error: problem({ code: "required" }) })
      .trim()
      .min(1, { error: problem({ code: "required" }) })
      .max(255, { error: problem({ code: "too_long" }) })
      .refine((s) => !hasControlChar(s), { error: problem({ code: "control_char" }) }),
    clientSecret: secretInput(),
    signingSecret: secretInput(),
  });

export type SettingsInput = Partial<Record<SettingsField | "confirmOriginChange", unknown>>;

export type SaveResult =
  | { ok: true; view: SettingsView; changedSecrets: ("clientSecret" | "signingSecret")[]; grantsToReconnect: number }
  | {
      ok: false;
      fieldErrors: FieldErrors;
      fieldProblems: FieldProblems;
      values: Omit<SettingsView, "clientSecret" | "signingSecret" | "configured">;
      /** Set when the save would move connected customers' tokens' service: saving again needs `confirmOriginChange`. */
      originChange?: { grants: number; message: string };
    };

/** A problem as zod carried it (JSON of FieldProblem); anything else reads as "required". */
function readProblem(message: string): FieldProblem {
  try {
    const parsed = JSON.parse(message) as FieldProblem;
    if (parsed && typeof parsed.code === "string") return parsed;
  } catch {
    // zod's own message (an input of the wrong type): the field needs a value.
  }
  return { code: "required" };
}

/** The form field that confirms an origin change (see saveSettings). */
export const CONFIRM_ORIGIN_FIELD = "confirmOriginChange";

type Row = Section<"service">;

/**
 * The one rule for "the service is configured": what calling it takes is stored. Imports and handoffs go to the
 * active environment's base URL, signed with the signing secret; connecting a customer takes the auth URL, the
 * client id and the client secret. (The settings form asks for both base URLs; "Check connection" says so when the
 * sandbox's is missing.)
 */
export function isServiceConfigured<R extends ServiceSettingsRow>(
  row: R | null | undefined,
): row is R & { clientSecretEnc: string; signingSecretEnc: string } {
  if (!row) return false;
  const baseUrl = row.environment === "production" ? row.baseUrl : row.sandboxBaseUrl;
  return Boolean(baseUrl && row.authUrl && row.clientId && row.clientSecretEnc && row.signingSecretEnc);
}

function toView(row: Row | null): SettingsView {
  const status = (enc: string | null | undefined, at: Date | null | undefined): SecretStatus => ({
    set: Boolean(enc),
    changedAt: enc && at ? at.toISOString() : null,
  });
  return {
    configured: isServiceConfigured(row),
    environment: row?.environment === "production" ? "production" : "sandbox",
    baseUrl: row?.baseUrl ?? "",
    sandboxBaseUrl: row?.sandboxBaseUrl ?? "",
    authUrl: row?.authUrl ?? "",
    clientId: row?.clientId ?? "",
    clientSecret: status(row?.clientSecretEnc, row?.clientSecretChangedAt),
    signingSecret: status(row?.signingSecretEnc, row?.signingSecretChangedAt),
  };
}

export async function getSettingsView(prisma: PrismaClient, shop: string): Promise<SettingsView> {
  return toView(await readSections(prisma, shop, "service"));
}

/** Validates and stores the settings form. Field errors come back keyed by field name, in plain words. */
export async function saveSettings(
  prisma: PrismaClient,
  shop: string,
  input: SettingsInput,
  options: { now?: Date; keyring?: Keyring; policy?: AddressPolicy } = {},
): Promise<SaveResult> {
  const now = options.now ?? new Date();
  const existing = await readSections(prisma, shop, "service");
  const str = (v: unknown) => (typeof v === "string" ? v : "");
  const values = {
    environment: (str(input.environment) === "production" ? "production" : "sandbox") as SettingsView["environment"],
    baseUrl: str(input.baseUrl).trim(),
    sandboxBaseUrl: str(input.sandboxBaseUrl).trim(),
    authUrl: str(input.authUrl).trim(),
    clientId: str(input.clientId).trim(),
  };

  const parsed = settingsFormSchema(options.policy ?? policyFromEnv()).safeParse(input);
  const fieldProblems: FieldProblems = {};
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const field = issue.path[0] as SettingsField;
      fieldProblems[field] ??= readProblem(issue.message);
    }
  }
  // A secret is required the first time; afterwards an empty field keeps the stored one.
  if (!str(input.clientSecret) && !existing?.clientSecretEnc) fieldProblems.clientSecret = { code: "required" };
  if (!str(input.signingSecret) && !existing?.signingSecretEnc) fieldProblems.signingSecret = { code: "required" };
  // A stored secret is only ever used with the addresses it was saved with: otherwise anyone with access to this
  // page could point the Auth URL (or a base URL) at their own server and have "Check connection" send it there.
  // The client secret goes to the Auth URL; the signing secret belongs to the base URLs.
  if (existing && parsed.success) {
    if (!str(input.clientSecret) && existing.clientSecretEnc && parsed.data.authUrl !== existing.authUrl) {
      fieldProblems.clientSecret ??= { code: "secret_again_auth" };
    }
    const moved = [
      parsed.data.baseUrl !== existing.baseUrl ? ("baseUrl" as const) : null,
      parsed.data.sandboxBaseUrl !== existing.sandboxBaseUrl ? ("sandboxBaseUrl" as const) : null,
    ].filter((f) => f !== null);
    if (!str(input.signingSecret) && existing.signingSecretEnc && moved.length > 0) {
      fieldProblems.signingSecret ??= { code: "secret_again_base", changed: moved };
    }
  }
  const fieldErrors: FieldErrors = Object.fromEntries(
    Object.entries(fieldProblems).map(([field, p]) => [field, problemText(field as SettingsField, p)]),
  );
  if (!parsed.success || Object.keys(fieldErrors).length > 0) return { ok: false, fieldErrors, fieldProblems, values };

  const data = parsed.data;
  // Connected customers' tokens are bound to the service origins that issued them (service/origins.server.ts):
  // moving any of them means every connected customer must reconnect. The merchant is told before it happens.
  const origins = serviceOrigins(data);
  const grantsToReconnect =
    existing && serviceOrigins(existing) !== origins ? await prisma.customerGrant.count({ where: { shop } }) : 0;
  if (grantsToReconnect > 0 && str(input[CONFIRM_ORIGIN_FIELD]) !== "true") {
    const message =
      `${grantsToReconnect} connected customer${grantsToReconnect === 1 ? "" : "s"} will have to reconnect: their tokens ` +
      "were issued by the current service address and are never sent to another one. Save again to confirm.";
    return { ok: false, fieldErrors, fieldProblems, values, originChange: { grants: grantsToReconnect, message } };
  }
  const changedSecrets: ("clientSecret" | "signingSecret")[] = [];
  const secretData: Record<string, string | Date> = {};
  if (data.clientSecret) {
    secretData.clientSecretEnc = sealFor(
      bindings.shopSettings(shop, "clientSecretEnc"),
      data.clientSecret,
      options.keyring,
    );
    secretData.clientSecretChangedAt = now;
    changedSecrets.push("clientSecret");
  }
  if (data.signingSecret) {
    secretData.signingSecretEnc = sealFor(
      bindings.shopSettings(shop, "signingSecretEnc"),
      data.signingSecret,
      options.keyring,
    );
    secretData.signingSecretChangedAt = now;
    changedSecrets.push("signingSecret");
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

/**
 * The decrypted settings the service client takes, read fresh from the database (no caching, so a rotated secret
 * applies to the next call), or null when the shop has not configured the service. Throws SecretBoxError when a
 * stored secret cannot be decrypted (e.g. its key was removed from ENCRYPTION_KEYS).
 */
export async function loadServiceSettings(
  prisma: PrismaClient,
  shop: string,
  keyring?: Keyring,
): Promise<ServiceSettings | null> {
  return serviceSettingsFromRow(shop, await readServiceRow(prisma, shop), keyring);
}

/**
 * The decrypted settings, or null when the shop has not configured the service or a stored secret cannot be
 * decrypted (its key was removed from ENCRYPTION_KEYS, or the value was altered): for every place that carries on
 * without the service (the shopper sees "not available", revoking is skipped while erasing goes on); the settings
 * page's "Check connection" says which. `row`: the service columns when the caller read them already (the
 * Continue cart click reads them with its own settings in one statement).
 */
export async function loadServiceSettingsOrNull(
  db: Db,
  shop: string,
  options: { keyring?: Keyring; row?: ServiceSettingsRow | null } = {},
): Promise<ServiceSettings | null> {
  const row = "row" in options ? (options.row ?? null) : await readServiceRow(db, shop);
  try {
    return serviceSettingsFromRow(shop, row, options.keyring);
  } catch (err) {
    if (err instanceof SecretBoxError) return null;
    throw err;
  }
}

/** The shop's ShopSettings row → the decrypted settings the client takes, or null while it is not configured. */
function serviceSettingsFromRow(
  shop: string,
  row: ServiceSettingsRow | null,
  keyring?: Keyring,
): ServiceSettings | null {
  if (!isServiceConfigured(row)) return null;
  return {
    environment: row.environment === "production" ? "production" : "sandbox",
    baseUrl: row.baseUrl,
    sandboxBaseUrl: row.sandboxBaseUrl,
    authUrl: row.authUrl,
    clientId: row.clientId,
    clientSecret: openFor(bindings.shopSettings(shop, "clientSecretEnc"), row.clientSecretEnc, keyring),
    signingSecret: openFor(bindings.shopSettings(shop, "signingSecretEnc"), row.signingSecretEnc, keyring),
  };
}

export type { CheckFinding };

export interface CheckLine {
  name: "signature" | "client";
  ok: boolean;
  message: string;
  /** The same as data, worded in the admin's language (app/admin/check-words.ts). */
  finding: CheckFinding;
}

export interface CheckReport {
  ok: boolean;
  /** One line for a banner: the first problem, or that everything passed. */
  message: string;
  finding: CheckFinding;
  lines: CheckLine[];
}

/**
 * "Check connection", with no side effect a merchant would mind:
 * 1. the signing secret: a one-line sandbox cart handoff that expires in 60 s (the client's checkConnection);
 * 2. the OAuth client id and secret: a refresh-token request with a token that cannot exist. A service that
 *    accepts the client answers invalid_grant; one that rejects it answers invalid_client. Nothing is issued.
 */
export async function checkServiceConnection(
  prisma: PrismaClient,
  shop: string,
  options: { keyring?: Keyring; deps?: ServiceDepsOverrides } = {},
): Promise<CheckReport> {
  let settings: ServiceSettings | null;
  try {
    settings = await loadServiceSettings(prisma, shop, options.keyring);
  } catch (err) {
    if (!(err instanceof SecretBoxError)) throw err;
    // The key that encrypted a secret is gone from ENCRYPTION_KEYS, or the value was altered or moved from another
    // row or column (values are bound to theirs): say so, no detail.
    const message =
      "A stored secret cannot be decrypted (its key is no longer in ENCRYPTION_KEYS, or it was changed in the database): enter the client secret and signing secret again.";
    return { ok: false, message, finding: { code: "undecryptable" }, lines: [] };
  }
  if (!settings) {
    const message = "Not configured yet: save the service settings (all fields and both secrets) first.";
    return { ok: false, message, finding: { code: "not_configured" }, lines: [] };
  }
  const signature = await checkConnection(settings, { environment: "sandbox", deps: options.deps });
  const lines: CheckLine[] = [
    { name: "signature", ok: signature.ok, message: signature.message, finding: signature.finding },
  ];

  const probe = await refreshTokens(settings, "connection-check-not-a-real-token", {
    deps: { timeoutMs: 10_000, ...options.deps },
  });
  const authHost = URL.canParse(settings.authUrl) ? new URL(settings.authUrl).host : "the auth server";
  if (probe.ok || probe.kind === "invalid_grant") {
    lines.push({
      name: "client",
      ok: true,
      message: `ok: ${authHost} accepted the client ID and client secret`,
      finding: { code: "client_ok", host: authHost },
    });
  } else if (probe.kind === "invalid_client") {
    lines.push({
      name: "client",
      ok: false,
      message: `client rejected: check the client ID and client secret (${authHost})`,
      finding: { code: "client_rejected", host: authHost },
    });
  } else if (probe.kind === "network_error" || probe.kind === "timeout") {
    lines.push({
      name: "client",
      ok: false,
      message: `could not reach ${authHost}`,
      finding: { code: "client_unreachable", host: authHost },
    });
  } else {
    // The OAuth module's own words in English; other languages get the kind of failure, a code.
    lines.push({
      name: "client",
      ok: false,
      message: `${authHost}: ${probe.message}`,
      finding: { code: "client_failed", host: authHost, what: probe.kind },
    });
  }
  const failed = lines.find((l) => !l.ok);
  return {
    ok: !failed,
    message: failed ? failed.message : "Connection ok: the service accepted the signature and the client credentials.",
    finding: failed ? failed.finding : { code: "all_ok" },
    lines,
  };
}
