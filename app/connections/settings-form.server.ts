// The settings form's validation: each field's rule, a stored secret asked for again when the addresses it belongs
// to move, and every problem as a code (the admin words it in its language) and in English (the API and logs).
import { z } from "zod";
import { serviceUrlProblem, urlProblemText, type AddressPolicy, type UrlProblem } from "../service/client.server";
import type { ServiceSettingsRow } from "../db/shop-settings.server";
import type { SettingsView } from "./settings-view.server";

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

/** The form's values as typed (trimmed), to show again beside the errors. */
export type FormValues = Omit<SettingsView, "clientSecret" | "signingSecret" | "configured">;

export type FormCheck =
  | { ok: true; data: z.infer<ReturnType<typeof settingsFormSchema>>; values: FormValues }
  | { ok: false; fieldErrors: FieldErrors; fieldProblems: FieldProblems; values: FormValues };

/**
 * Checks the settings form against its rules and against the stored row (`existing`): a secret is required the
 * first time, and asked for again when the addresses it belongs to change.
 */
export function checkSettingsForm(
  input: SettingsInput,
  existing: ServiceSettingsRow | null,
  policy: AddressPolicy,
): FormCheck {
  const str = (v: unknown) => (typeof v === "string" ? v : "");
  const values: FormValues = {
    environment: str(input.environment) === "production" ? "production" : "sandbox",
    baseUrl: str(input.baseUrl).trim(),
    sandboxBaseUrl: str(input.sandboxBaseUrl).trim(),
    authUrl: str(input.authUrl).trim(),
    clientId: str(input.clientId).trim(),
  };

  const parsed = settingsFormSchema(policy).safeParse(input);
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
  return { ok: true, data: parsed.data, values };
}
