// "Check connection": the stored settings tried against the service with no side effect a merchant would mind,
// reported line by line in English and as codes the admin words in its language.
import type { PrismaClient } from "@prisma/client";
import {
  checkConnection,
  refreshTokens,
  type CheckFinding,
  type ServiceDepsOverrides,
  type ServiceSettings,
} from "../service/client.server";
import { SecretBoxError, type Keyring } from "../crypto/secret-box.server";
import { loadServiceSettings } from "./settings-loader.server";

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
