// Step 0 of connecting a workspace (the storefront's "Connect" button, through the app proxy): a state row bound
// to the shop and the customer, with the PKCE code_verifier encrypted, and the service's authorization URL.
import type { PrismaClient } from "@prisma/client";
import { SERVICE_SCOPES, startAuthorization, type ServiceSettings } from "../service/client.server";
import { bindings, sealFor, type Keyring } from "../crypto/secret-box.server";
import { resultMessage } from "./connect-page.server";
import { callbackUrl, STATE_RETENTION_MS, STATE_TTL_MS } from "./oauth-common.server";
import { DEFAULT_PROXY_PREFIX } from "../shopify/proxy-path";
import { loadServiceSettings } from "./settings.server";

// Display-only values the storefront's Liquid filled in: one line, bounded.
const cleanLabel = (value: string | null | undefined, max: number) => {
  // eslint-disable-next-line no-control-regex -- removing control characters is the point
  const s = (value ?? "").replace(/[\u0000-\u001f\u007f]+/g, " ").trim().slice(0, max);
  return s && !s.includes("{{") ? s : null; // "{{" = Liquid that was never rendered: no name known
};

export interface StartInput {
  shop: string;
  customerId: string;
  customerName?: string | null;
  customerEmail?: string | null;
  /** The storefront path to come back to, e.g. "/apps/workspace/connect". */
  returnTo?: string;
}

export type StartResult = { ok: true; authorizationUrl: string } | { ok: false; code: "not_configured"; message: string };

export async function startConnect(
  prisma: PrismaClient,
  input: StartInput,
  options: { appUrl: string; now?: Date; keyring?: Keyring; settings?: ServiceSettings | null },
): Promise<StartResult> {
  const now = options.now ?? new Date();
  let settings: ServiceSettings | null;
  try {
    settings = options.settings !== undefined ? options.settings : await loadServiceSettings(prisma, input.shop, options.keyring);
  } catch {
    settings = null; // undecryptable settings: the merchant sees it on the settings page; the shopper gets plain words
  }
  if (!settings) return { ok: false, code: "not_configured", message: resultMessage("not_configured") };

  const redirectUri = callbackUrl(options.appUrl);
  const start = await startAuthorization(settings, { redirectUri, scopes: SERVICE_SCOPES });
  // Rows still holding exchanged tokens are left to the worker, which revokes them first (privacy/housekeeping).
  await prisma.oAuthState.deleteMany({ where: { expiresAt: { lt: new Date(now.getTime() - STATE_RETENTION_MS) }, pendingTokensEnc: null } });
  await prisma.oAuthState.create({
    data: {
      state: start.state,
      shop: input.shop,
      customerId: input.customerId,
      customerName: cleanLabel(input.customerName, 200),
      customerEmail: cleanLabel(input.customerEmail, 320),
      codeVerifierEnc: sealFor(bindings.oauthState({ shop: input.shop, state: start.state }, "codeVerifierEnc"), start.codeVerifier, options.keyring),
      redirectUri,
      returnTo: input.returnTo ?? `${DEFAULT_PROXY_PREFIX}/connect`,
      createdAt: now,
      expiresAt: new Date(now.getTime() + STATE_TTL_MS),
    },
  });
  return { ok: true, authorizationUrl: start.url.toString() };
}

