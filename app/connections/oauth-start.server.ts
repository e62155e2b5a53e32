// Step 0 of connecting a workspace (the storefront's "Connect" button, through the app proxy): a state row bound
// to the shop and the customer, with the PKCE code_verifier encrypted, and the service's authorization URL.
import type { PrismaClient } from "@prisma/client";
import { SERVICE_SCOPES, startAuthorization, type ServiceSettings } from "../service/client.server";
import { bindings, openFor, sealFor, type Keyring } from "../crypto/secret-box.server";
import { resultMessage } from "./connect-page.server";
import { callbackUrl, STATE_RETENTION_MS, STATE_TTL_MS } from "./oauth-common.server";
import { DEFAULT_PROXY_PREFIX } from "../shopify/app-proxy.server";
import { loadServiceSettingsOrNull } from "./settings-loader.server";

// eslint-disable-next-line no-control-regex -- removing control characters is the point
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]+/g;

// Display-only values the storefront's Liquid filled in: one line, bounded.
const cleanLabel = (value: string | null | undefined, max: number) => {
  const s = (value ?? "").replace(CONTROL_CHARACTERS, " ").trim().slice(0, max);
  return s && !s.includes("{{") ? s : null; // "{{" = Liquid that was never rendered: no name known
};

export interface StartInput {
  shop: string;
  customerId: string;
  customerName?: string | null;
  customerEmail?: string | null;
  /**
   * Where to come back to: the storefront path, e.g. "/apps/workspace/connect", or the account page the app built from
   * Shopify's account root (account-root.server.ts).
   */
  returnTo?: string;
}

/** What a caller's `beforeNew` may answer instead of a new attempt. */
export type StartRefusal = { ok: false; code: "busy"; message: string };
export type StartResult =
  { ok: true; authorizationUrl: string } | { ok: false; code: "not_configured"; message: string } | StartRefusal;

/** A pending attempt is handed out again while this much of its life is left (time to consent at the service). */
export const REUSE_MIN_LEFT_MS = 5 * 60 * 1000;
/** Attempts never called back, per customer: a new one beyond this replaces the oldest. */
export const MAX_UNUSED_PER_CUSTOMER = 3;

interface AttemptKey {
  shop: string;
  customerId: string;
  returnTo: string;
  redirectUri: string;
}

/**
 * The customer's attempt started moments ago for the same return page and not called back yet: its state and
 * verifier, so clicking Connect again sends the same link instead of writing a row per click.
 */
async function pendingAttempt(prisma: PrismaClient, key: AttemptKey, now: Date, keyring?: Keyring) {
  const row = await prisma.oAuthState.findFirst({
    where: {
      ...key,
      usedAt: null,
      pendingTokensEnc: null,
      expiresAt: { gt: new Date(now.getTime() + REUSE_MIN_LEFT_MS) },
    },
    orderBy: { createdAt: "desc" },
    select: { state: true, codeVerifierEnc: true },
  });
  if (!row) return null;
  try {
    return {
      state: row.state,
      codeVerifier: openFor(
        bindings.oauthState({ shop: key.shop, state: row.state }, "codeVerifierEnc"),
        row.codeVerifierEnc,
        keyring,
      ),
    };
  } catch {
    return null; // sealed under a key no longer held: start afresh
  }
}

// Starts in flight in this process, by customer and return page: simultaneous clicks share one attempt.
const inFlight = new Map<string, Promise<StartResult>>();

type StartOptions = {
  appUrl: string;
  now?: Date;
  keyring?: Keyring;
  settings?: ServiceSettings | null;
  /** Asked only when no pending attempt can be handed out again, before a new one costs a row: a refusal ends it. */
  beforeNew?: () => Promise<StartRefusal | null>;
};

export function startConnect(prisma: PrismaClient, input: StartInput, options: StartOptions): Promise<StartResult> {
  const flight = JSON.stringify([input.shop, input.customerId, input.returnTo ?? null, options.appUrl]);
  const running = inFlight.get(flight);
  if (running) return running;
  const started = startOrReuse(prisma, input, options).finally(() => inFlight.delete(flight));
  inFlight.set(flight, started);
  return started;
}

async function startOrReuse(prisma: PrismaClient, input: StartInput, options: StartOptions): Promise<StartResult> {
  const now = options.now ?? new Date();
  // Undecryptable settings count as none: the merchant sees why on the settings page; the shopper gets plain words.
  const settings =
    options.settings !== undefined
      ? options.settings
      : await loadServiceSettingsOrNull(prisma, input.shop, { keyring: options.keyring });
  if (!settings) return { ok: false, code: "not_configured", message: resultMessage("not_configured") };

  const redirectUri = callbackUrl(options.appUrl);
  const key: AttemptKey = {
    shop: input.shop,
    customerId: input.customerId,
    returnTo: input.returnTo ?? `${DEFAULT_PROXY_PREFIX}/connect`,
    redirectUri,
  };
  const pending = await pendingAttempt(prisma, key, now, options.keyring);
  if (pending) {
    const again = await startAuthorization(settings, { redirectUri, scopes: SERVICE_SCOPES, pending });
    return { ok: true, authorizationUrl: again.url.toString() };
  }
  const refused = await options.beforeNew?.();
  if (refused) return refused;
  const start = await startAuthorization(settings, { redirectUri, scopes: SERVICE_SCOPES });
  // Rows still holding exchanged tokens are left to the worker, which revokes them first (privacy/housekeeping).
  await prisma.oAuthState.deleteMany({
    where: { expiresAt: { lt: new Date(now.getTime() - STATE_RETENTION_MS) }, pendingTokensEnc: null },
  });
  // At most MAX_UNUSED_PER_CUSTOMER attempts never called back: the oldest beyond make room for this one. A
  // callback claims its row atomically (usedAt), so one that is claimed meanwhile is no longer deleted here.
  const keep = await prisma.oAuthState.findMany({
    where: { shop: input.shop, customerId: input.customerId, usedAt: null, pendingTokensEnc: null },
    orderBy: { createdAt: "desc" },
    take: MAX_UNUSED_PER_CUSTOMER - 1,
    select: { state: true },
  });
  await prisma.oAuthState.deleteMany({
    where: {
      shop: input.shop,
      customerId: input.customerId,
      usedAt: null,
      pendingTokensEnc: null,
      state: { notIn: keep.map((k) => k.state) },
    },
  });
  await prisma.oAuthState.create({
    data: {
      state: start.state,
      shop: input.shop,
      customerId: input.customerId,
      customerName: cleanLabel(input.customerName, 200),
      customerEmail: cleanLabel(input.customerEmail, 320),
      codeVerifierEnc: sealFor(
        bindings.oauthState({ shop: input.shop, state: start.state }, "codeVerifierEnc"),
        start.codeVerifier,
        options.keyring,
      ),
      redirectUri,
      returnTo: key.returnTo,
      createdAt: now,
      expiresAt: new Date(now.getTime() + STATE_TTL_MS),
    },
  });
  return { ok: true, authorizationUrl: start.url.toString() };
}
