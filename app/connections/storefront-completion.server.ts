// Step 2 of connecting a workspace, whether it started on the storefront's connect page or in the customer
// account (app/connections/account-connect.server.ts): the completion step on the store (through the app proxy,
// so Shopify vouches for logged_in_customer_id). Stores the pending grant only when that customer started the flow; anyone else:
// nothing stored, the tokens revoked at the service and erased.
import type { PrismaClient } from "@prisma/client";
import { errorName } from "../lib/errors";
import { tokensMayGoTo } from "../service/client.server";
import { storeGrant } from "./grant-lifecycle.server";
import { queueRevocations, revokeOrQueue, tokenOf } from "./revocations.server";
import {
  COMPLETE_SUFFIX,
  openTokens,
  sameHash,
  settingsAndSecret,
  proofHash,
  recordResult,
  STATE_FORMAT,
  storefrontUrl,
} from "./oauth-common.server";
import type { ConnectResultCode, ConnectStepOptions } from "./oauth-common.server";

export interface CompletionInput {
  /** From the verified app proxy request. */
  shop: string;
  /** Shopify's logged_in_customer_id, from the verified request; null or empty when nobody is logged in. */
  customerId: string | null;
  /** The proxied request's URL (state and proof in its query). */
  url: string | URL;
  /** The proxy's path prefix (Shopify's signed path_prefix, checked by verifyAppProxy), e.g. "/apps/workspace". */
  prefix: string;
}

export type CompletionResult =
  /** Send the shopper to the store's connect page with this result. */
  | { kind: "redirect"; location: string; result: ConnectResultCode }
  /** Nobody is logged in: a sign-in page (the theme's login link) that comes back to `returnPath`, this same step. */
  | { kind: "login"; returnPath: string };

const PROOF_FORMAT = /^[A-Za-z0-9_-]{43}$/;

/**
 * Completes a connect, from the storefront or the account (GET {prefix}/connect/complete?state=…&proof=… through
 * the app proxy): stores the pending grant when the logged-in customer is the one who started; otherwise stores nothing and revokes.
 */
export async function completeConnect(
  prisma: PrismaClient,
  input: CompletionInput,
  options: ConnectStepOptions = {},
): Promise<CompletionResult> {
  const now = options.now ?? new Date();
  const log = options.log ?? (() => undefined);
  const url = new URL(input.url);
  const state = url.searchParams.get("state");
  const proof = url.searchParams.get("proof");
  const to = (result: ConnectResultCode, returnTo: string | null = `${input.prefix}/connect`): CompletionResult => ({
    kind: "redirect",
    location: storefrontUrl(input.shop, returnTo, result),
    result,
  });
  if (!state || !STATE_FORMAT.test(state) || url.searchParams.getAll("state").length !== 1) return to("invalid_state");
  if (!input.customerId) {
    // Back to this very step after logging in (Shopify takes a path on the store as return_url).
    const back = new URLSearchParams({ state, proof: proof && PROOF_FORMAT.test(proof) ? proof : "" });
    return { kind: "login", returnPath: `${input.prefix}/connect${COMPLETE_SUFFIX}?${back}` };
  }

  const row = await prisma.oAuthState.findUnique({ where: { state } });
  const proofOk = Boolean(
    row?.proofHash && proof && PROOF_FORMAT.test(proof) && sameHash(proofHash(proof), row.proofHash),
  );
  // Another shop's state, or no proof from the callback: not this step's to finish (and nothing is used up).
  if (!row || row.shop !== input.shop || !proofOk) {
    log("connect_complete_unrecognised", { shop: input.shop });
    return to("invalid_state");
  }
  if (!row.pendingTokensEnc) return to("already_used", row.returnTo);

  // Take the pending tokens: of concurrent completions exactly one gets them; they are off the row from here on.
  const taken = await prisma.oAuthState.updateMany({
    where: { state, pendingTokensEnc: row.pendingTokensEnc },
    data: { pendingTokensEnc: null },
  });
  if (taken.count !== 1) return to("already_used", row.returnTo);

  // The attempt's outcome, kept on its row for the account pages to ask, and where this browser goes with it.
  const finish = async (result: ConnectResultCode, returnTo: string | null = row.returnTo) => {
    await recordResult(prisma, state, result, now);
    return to(result, returnTo);
  };

  const sealed = row.pendingTokensEnc;
  const opened = await settingsAndSecret(prisma, row.shop, options.keyring, () =>
    openTokens(row, sealed, options.keyring),
  );
  if (!opened) {
    log("connect_complete_decrypt_failed", { shop: row.shop });
    return finish("failed");
  }
  const { settings, secret: tokens } = opened;

  // The settings now name other origins than those that issued the tokens (or none bound them): the tokens go
  // nowhere, neither stored for the new service nor revoked there; they expire at their issuer.
  const issuerOk = settings !== null && tokensMayGoTo(row.boundOrigins, settings);

  const discard = async (result: ConnectResultCode): Promise<CompletionResult> => {
    // Best effort: revoking the refresh token ends the whole authorization at the service; the worker retries.
    if (settings && issuerOk) {
      const revoked = await revokeOrQueue(prisma, settings, tokenOf(tokens), {
        keyring: options.keyring,
        deps: options.deps,
      });
      if (!revoked.ok) log("connect_pending_revoke_failed", { shop: row.shop, kind: revoked.kind });
    } else {
      log("connect_pending_revoke_skipped", { shop: row.shop, reason: settings ? "origin_changed" : "not_configured" });
    }
    // Another customer's browser is told here, on the store's Connect page, not sent to the starter's account page.
    return finish(result, result === "wrong_customer" ? `${input.prefix}/connect` : row.returnTo);
  };

  if (row.expiresAt.getTime() <= now.getTime()) {
    log("connect_complete_expired", { shop: row.shop, customerId: row.customerId });
    return discard("expired");
  }
  if (row.customerId !== input.customerId) {
    log("connect_complete_wrong_customer", {
      shop: row.shop,
      customerId: row.customerId,
      completedBy: input.customerId,
    });
    return discard("wrong_customer");
  }
  if (!settings) return finish("not_configured");
  if (!issuerOk) {
    log("connect_complete_origin_changed", { shop: row.shop, customerId: row.customerId });
    return finish("failed");
  }

  let previousRefreshToken: string | null;
  try {
    ({ previousRefreshToken } = await storeGrant(
      prisma,
      {
        shop: row.shop,
        customerId: row.customerId,
        customerName: row.customerName,
        customerEmail: row.customerEmail,
        // The contract always names the workspace; a service that does not still gets a stable label.
        workspaceId: tokens.workspaceId ?? "unknown",
        tokens,
        boundOrigins: row.boundOrigins,
      },
      { now, keyring: options.keyring },
    ));
  } catch {
    // Not stored: the tokens are off the state row already, so nothing here holds them but the outbox.
    log("connect_store_failed", { shop: row.shop, customerId: row.customerId });
    await queueRevocations(prisma, settings, [tokenOf(tokens)], { keyring: options.keyring, now }).catch(() => 0);
    return finish("failed");
  }
  log("customer_connected", {
    shop: row.shop,
    customerId: row.customerId,
    workspaceId: tokens.workspaceId,
    scopes: tokens.scopes,
  });

  // A reconnect replaced an older authorization: end it at the service so no stale token stays valid there.
  if (previousRefreshToken) {
    const old = { token: previousRefreshToken, hint: "refresh_token" } as const;
    const revoked = await revokeOrQueue(prisma, settings, old, { keyring: options.keyring, deps: options.deps });
    if (!revoked.ok) log("connect_old_grant_revoke_failed", { shop: row.shop, kind: revoked.kind });
  }
  if (options.onConnected) {
    try {
      await options.onConnected({ shop: row.shop, customerId: row.customerId });
    } catch (err) {
      log("on_connected_failed", { shop: row.shop, error: errorName(err) });
    }
  }
  return finish("connected");
}
