// Step 1 of connecting a workspace: the OAuth callback on the app's own URL (GET /connect/callback). Checks and
// consumes the state (exactly once), exchanges the code, and keeps the token set sealed on the state row as
// pending; the store's completion step (storefront-completion.server.ts) decides whether it is stored.
import { randomBytes } from "node:crypto";
import type { PrismaClient } from "@prisma/client";
import { completeAuthorization, SERVICE_SCOPES, serviceOrigins } from "../service/client.server";
import { bindings, openFor } from "../crypto/secret-box.server";
import {
  completionUrl,
  recordResult,
  sealTokens,
  settingsAndSecret,
  proofHash,
  STATE_FORMAT,
  storefrontUrl,
} from "./oauth-common.server";
import type { ConnectResultCode, ConnectStepOptions } from "./oauth-common.server";

export type CallbackResult =
  /** Send the shopper back to the store with this result ("pending": to the completion step). */
  | { kind: "redirect"; location: string; result: ConnectResultCode | "pending"; shop: string; customerId: string }
  /** Nothing ties the request to a store (unknown or missing state): answer on the app's own domain. */
  | { kind: "error"; status: 400; result: "invalid_state"; message: string };

/** Handles GET /connect/callback?code=…&state=… (or ?error=…&state=…). */
export async function handleOAuthCallback(
  prisma: PrismaClient,
  requestUrl: string | URL,
  options: ConnectStepOptions = {},
): Promise<CallbackResult> {
  const now = options.now ?? new Date();
  const log = options.log ?? (() => undefined);
  const url = new URL(requestUrl);
  const state = url.searchParams.get("state");
  const invalid: CallbackResult = {
    kind: "error",
    status: 400,
    result: "invalid_state",
    message: "This connection link is not valid. Go back to the store and start the connection again.",
  };
  if (!state || !STATE_FORMAT.test(state) || url.searchParams.getAll("state").length !== 1) return invalid;

  const row = await prisma.oAuthState.findUnique({ where: { state } });
  if (!row) {
    log("connect_callback_unknown_state", {});
    return invalid;
  }
  // The outcome is kept on the row (the account pages ask for it); "already_used" is another request's attempt.
  const back = async (result: ConnectResultCode): Promise<CallbackResult> => {
    if (result !== "already_used") await recordResult(prisma, state, result, now);
    return {
      kind: "redirect",
      location: storefrontUrl(row.shop, row.returnTo, result),
      result,
      shop: row.shop,
      customerId: row.customerId,
    };
  };

  // Consume the state before anything else: of two concurrent callbacks, exactly one gets past this line.
  const claimed = await prisma.oAuthState.updateMany({
    where: { state, usedAt: null, expiresAt: { gt: now } },
    data: { usedAt: now },
  });
  if (claimed.count !== 1) {
    // Read again: a concurrent callback may have used it after our first read.
    const current = await prisma.oAuthState.findUnique({ where: { state }, select: { usedAt: true } });
    const result = current?.usedAt ? "already_used" : "expired";
    log("connect_callback_rejected", { shop: row.shop, result });
    return back(result);
  }

  const opened = await settingsAndSecret(prisma, row.shop, options.keyring, () =>
    openFor(bindings.oauthState(row, "codeVerifierEnc"), row.codeVerifierEnc, options.keyring),
  );
  if (!opened) {
    log("connect_callback_decrypt_failed", { shop: row.shop });
    return back("failed");
  }
  const { settings, secret: codeVerifier } = opened;
  if (!settings) return back("not_configured");

  const exchanged = await completeAuthorization(settings, {
    callbackUrl: url,
    expectedState: state,
    codeVerifier,
    redirectUri: row.redirectUri,
    requestedScopes: SERVICE_SCOPES,
    deps: options.deps,
  });
  if (!exchanged.ok) {
    const result: ConnectResultCode =
      exchanged.kind === "access_denied" ? "denied" : exchanged.kind === "invalid_state" ? "invalid_state" : "failed";
    log("connect_callback_failed", {
      shop: row.shop,
      kind: exchanged.kind,
      errorCode: exchanged.errorCode,
      status: exchanged.status,
    });
    return back(result);
  }

  // Not stored yet: only the store's completion step knows who is logged in there. The proof makes the step
  // reachable only from the browser that came through here (the state alone is in the authorization URL, which
  // whoever started the flow has seen).
  const proof = randomBytes(32).toString("base64url");
  await prisma.oAuthState.update({
    where: { state },
    // Bound to the origins that issued them: completed, revoked or swept only against those.
    data: {
      pendingTokensEnc: sealTokens(row, exchanged.value, options.keyring),
      proofHash: proofHash(proof),
      exchangedAt: now,
      boundOrigins: serviceOrigins(settings),
    },
  });
  log("connect_callback_exchanged", {
    shop: row.shop,
    customerId: row.customerId,
    workspaceId: exchanged.value.workspaceId,
  });
  return {
    kind: "redirect",
    location: completionUrl(row.shop, row.returnTo, state, proof),
    result: "pending",
    shop: row.shop,
    customerId: row.customerId,
  };
}
