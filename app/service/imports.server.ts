// Order and shipment imports (POST /api/v1/orders, /api/v1/shipments) with the customer's bearer token.
//
// Token handling:
// - Before sending, a token that expires within `refreshSkewMs` is refreshed; a token with no known expiry is
//   used until the service answers 401.
// - A 401 is answered by one forced refresh and one resend (same key, same bytes); a second 401 is final.
// - Refreshes of one store are single-flight in this process and, when the store offers withRefreshLock, across
//   processes too; the save is a compare-and-set on tokenVersion: when another worker saved first, its tokens win.
//
// Crash safety: the service rotates the refresh token on every refresh, so between its answer and our save the
// only copy of the new refresh token is in memory. That window is kept as small as it can be: the save is the
// very next step, one atomic compare-and-set row write of access token + expiry + refresh token + scopes +
// version (never a partial update, never a new access token beside a used refresh token). If the store write
// fails but the process lives, the same compare-and-set is retried (it is idempotent) and this call still uses the
// new token. If the process dies in the window, the row still holds the previous complete set and no lock is left
// behind (the optional refresh lock is one the database drops with the connection); the next refresh presents the
// used token, the service answers invalid_grant (and revokes that authorization: docs/service.md), and the grant is
// marked needs_reconnect with a plain reason at once, so the merchant is asked to reconnect instead of imports
// failing in a loop.
import type { z } from "zod";
import { OrderRequestSchema, ResourceResponseSchema, ShipmentRequestSchema } from "./schemas";
import type { OrderRequest, ResourceResponse, ShipmentRequest } from "./schemas";
import {
  joinUrl,
  serviceBaseUrl,
  toContext,
  type ServiceContext,
  type ServiceDepsOverrides,
  type ServiceSettings,
} from "./context.server";
import type { GrantStore, StoredGrant } from "./grant-store.server";
import { ENDPOINT_PATHS, jsonHeaders, prepareBody, sendAttempt, type Endpoint } from "./http.server";
import { refreshTokens, type OAuthFailure } from "./oauth.server";
import { failure, type Failure, type Outcome } from "./outcomes.server";
import { ORIGIN_CHANGED_REASON, tokensMayGoTo } from "./origins.server";
import { withRetries } from "./retry.server";

/** Grant reasons set here (CustomerGrant.statusReason); the admin words them by code (app/admin/reason-words.ts). */
export const NO_REFRESH_REASON = "the access token expired or was rejected and the service issued no refresh token";
export const INVALID_GRANT_REASON =
  "the service no longer accepts the saved authorization (revoked, expired or already used); the customer must reconnect the workspace";

export interface ImportOptions {
  idempotencyKey: string;
  signal?: AbortSignal;
  /** Per-call overrides (timeout, retry budget, injected fetch/clock for tests). */
  deps?: ServiceDepsOverrides;
}

export type ImportOutcome = Outcome<ResourceResponse>;

/** Imports (upserts) an order into the customer's workspace. */
export function importOrder(
  target: ServiceSettings | ServiceContext,
  grant: GrantStore,
  order: OrderRequest | unknown,
  options: ImportOptions,
): Promise<ImportOutcome> {
  return importResource(target, grant, "orders", OrderRequestSchema, order, options);
}

/** Imports (upserts) a shipment; its order must have been imported into the same workspace first. */
export function importShipment(
  target: ServiceSettings | ServiceContext,
  grant: GrantStore,
  shipment: ShipmentRequest | unknown,
  options: ImportOptions,
): Promise<ImportOutcome> {
  return importResource(target, grant, "shipments", ShipmentRequestSchema, shipment, options);
}

async function importResource(
  target: ServiceSettings | ServiceContext,
  store: GrantStore,
  endpoint: Endpoint,
  schema: z.ZodType,
  payload: unknown,
  options: ImportOptions,
): Promise<ImportOutcome> {
  const ctx = toContext(target, options.deps);
  const prepared = prepareBody(schema, payload, options.idempotencyKey);
  if (!prepared.ok) return prepared.failure;
  const { body } = prepared;
  const url = joinUrl(serviceBaseUrl(ctx.settings), ENDPOINT_PATHS[endpoint]);
  const send = (accessToken: string) =>
    sendAttempt(
      ctx.deps,
      {
        endpoint,
        url,
        body,
        headers: { ...jsonHeaders(options.idempotencyKey), Authorization: `Bearer ${accessToken}` },
      },
      ResourceResponseSchema,
      options.signal,
    );

  let refreshedOn401 = false;
  const outcome = await withRetries(
    ctx.deps,
    async () => {
      const token = await accessTokenFor(ctx, store, {});
      if (!token.ok) return token.failure;
      const first = await send(token.accessToken);
      if (first.ok || first.kind !== "invalid_token" || refreshedOn401) return first;
      const again = await accessTokenFor(ctx, store, { rejected: token.accessToken });
      if (!again.ok) return { ...again.failure, attempts: first.attempts + again.failure.attempts };
      refreshedOn401 = true; // once per call: a token refreshed a moment ago that is rejected again is final
      const second = await send(again.accessToken);
      return { ...second, attempts: first.attempts + second.attempts };
    },
    options.signal,
  );
  if (outcome.ok && store.markUsed) await store.markUsed(new Date(ctx.deps.now())).catch(() => undefined);
  return outcome;
}

type TokenResult = { ok: true; accessToken: string } | { ok: false; failure: Failure };

const inFlightRefresh = new WeakMap<GrantStore, Promise<TokenResult>>();

const reconnect = (reason: string, attempts = 0): TokenResult => ({
  ok: false,
  failure: failure("reconnect_required", { detail: reason }, attempts),
});

/**
 * A usable access token for this store. `rejected`: the service just answered 401 to that token, so refresh
 * now (unless another worker already replaced it).
 */
export async function accessTokenFor(
  ctx: ServiceContext,
  store: GrantStore,
  opts: { rejected?: string },
): Promise<TokenResult> {
  const grant = await store.load();
  if (!grant) return reconnect("no connection is stored for this customer");
  if (grant.status !== "active") return reconnect(grant.statusReason ?? "the connection was marked for reconnection");
  if (!tokensMayGoTo(grant.boundOrigins, ctx.settings)) {
    // The settings now point elsewhere than the server that issued these tokens: send them nowhere.
    await store.markNeedsReconnect(ORIGIN_CHANGED_REASON, grant.tokenVersion);
    return reconnect(ORIGIN_CHANGED_REASON);
  }

  const now = ctx.deps.now();
  const expiresAt = grant.accessTokenExpiresAt?.getTime();
  if (opts.rejected === undefined) {
    if (expiresAt === undefined || expiresAt - ctx.deps.refreshSkewMs > now)
      return { ok: true, accessToken: grant.accessToken };
  } else if (grant.accessToken !== opts.rejected) {
    return { ok: true, accessToken: grant.accessToken }; // someone refreshed since we loaded: try theirs
  }

  if (!grant.refreshToken) {
    if (opts.rejected === undefined && expiresAt !== undefined && expiresAt > now) {
      return { ok: true, accessToken: grant.accessToken };
    }
    const reason = NO_REFRESH_REASON;
    await store.markNeedsReconnect(reason, grant.tokenVersion);
    return reconnect(reason);
  }

  const pending = inFlightRefresh.get(store);
  if (pending) return pending;
  const forced = opts.rejected !== undefined;
  const refresh = store.withRefreshLock
    ? store.withRefreshLock(async () => {
        // Re-read under the lock: another process may have refreshed while we waited for it.
        const current = await store.load();
        if (current && current.tokenVersion !== grant.tokenVersion) {
          return current.status === "active"
            ? ({ ok: true, accessToken: current.accessToken } as const)
            : reconnect(current.statusReason ?? "the connection was marked for reconnection");
        }
        return refreshAndSave(ctx, store, current ?? grant, forced);
      })
    : refreshAndSave(ctx, store, grant, forced);
  const run = refresh.finally(() => inFlightRefresh.delete(store));
  inFlightRefresh.set(store, run);
  return run;
}

async function refreshAndSave(
  ctx: ServiceContext,
  store: GrantStore,
  grant: StoredGrant,
  forced: boolean,
): Promise<TokenResult> {
  const refreshed = await refreshTokens(ctx, grant.refreshToken!, { currentScopes: grant.scopes });
  const now = ctx.deps.now();
  const stillValid = !forced && (grant.accessTokenExpiresAt === null || grant.accessTokenExpiresAt.getTime() > now);

  if (!refreshed.ok) {
    if (refreshed.kind === "invalid_grant") {
      const reason = INVALID_GRANT_REASON;
      if (await store.markNeedsReconnect(reason, grant.tokenVersion)) {
        ctx.deps.logger?.warn({ workspaceId: grant.workspaceId }, "grant marked needs_reconnect after invalid_grant");
        return reconnect(reason, 1);
      }
      // The version moved: another worker refreshed meanwhile (our token was the used one). Use theirs.
      const current = await store.load();
      return current?.status === "active"
        ? { ok: true, accessToken: current.accessToken }
        : reconnect(current?.statusReason ?? reason, 1);
    }
    // A hiccup at the token endpoint: the current token still works for a while, so do not fail the import.
    if (refreshed.retryable && stillValid) return { ok: true, accessToken: grant.accessToken };
    return { ok: false, failure: refreshFailure(refreshed) };
  }

  // Save first, before the new access token is used for anything (see the crash-safety note at the top).
  const tokens = {
    accessToken: refreshed.value.accessToken,
    accessTokenExpiresAt: refreshed.value.accessTokenExpiresAt,
    refreshToken: refreshed.value.refreshToken,
    scopes: refreshed.value.scopes,
  };
  let saveError: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const saved = await store.saveRefreshed(grant.tokenVersion, tokens);
      if (saved) return { ok: true, accessToken: saved.accessToken };
      const current = await store.load(); // lost the compare-and-set: another worker's tokens win
      if (current?.status === "active") return { ok: true, accessToken: current.accessToken };
      return reconnect(current?.statusReason ?? "the connection was removed while refreshing", 1);
    } catch (err) {
      saveError = err; // the same compare-and-set is safe to repeat
    }
  }
  // The store stays unwritable: the previous complete set stays stored; this call still uses the new token.
  ctx.deps.logger?.warn(
    { workspaceId: grant.workspaceId, error: saveError instanceof Error ? saveError.name : "unknown" },
    "refreshed tokens could not be saved",
  );
  return { ok: true, accessToken: tokens.accessToken };
}

function refreshFailure(r: OAuthFailure): Failure {
  const kind =
    r.kind === "timeout" || r.kind === "network_error" || r.kind === "server_error" ? r.kind : "invalid_token";
  return failure(kind, { message: r.message, status: r.status, errorCode: r.errorCode, retryable: r.retryable }, 1);
}
