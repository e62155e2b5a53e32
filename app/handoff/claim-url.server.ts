// Where Continue cart may send a shopper: only to the claim URL of the service the merchant configured. The
// service's answer is checked on the server (here) and again by the storefront script
// (extensions/storefront/assets/continue-cart.js, the same rule in plain JavaScript), against the origin of
// the active environment's base URL: https only, with one explicit exception for the local demo and tests (the
// emulator on http://127.0.0.1): http on a loopback host (127.0.0.0/8, localhost, [::1]), on the server only when
// ALLOW_LOOPBACK_SERVICE_URLS=true (which is also what lets the settings name a loopback service at all,
// app/service/address-policy.server.ts). The script cannot read that switch; it allows loopback http always,
// which is harmless: it is a "potentially trustworthy" origin to browsers, nothing crosses a network, and the
// server never names such an origin for a real store. What a loopback host is: app/loopback.ts.
import { isLoopbackHost } from "../loopback";
import { policyFromEnv, type AddressPolicy } from "../service/client.server";
import type { FlowResult } from "./flow.server";

/**
 * A successful result's claim URL when the shopper may be sent there (allowedClaimUrl, below: https on the configured
 * service's origin; http only to a loopback service the address policy allows, i.e. the demo and tests); null
 * otherwise: never a javascript: or data: address, nor another site.
 */
export function safeClaimUrl(
  result: Extract<FlowResult, { ok: true }>,
  policy: AddressPolicy = policyFromEnv(),
): string | null {
  return allowedClaimUrl(result.claimUrl, serviceOriginOf(result.serviceOrigin), {
    allowLoopbackHttp: policy.allowLoopback,
  });
}

/** The origin a claim URL must be on: the base URL's, or null when it is no http(s) address. */
export function serviceOriginOf(baseUrl: string): string | null {
  if (!URL.canParse(baseUrl)) return null;
  const url = new URL(baseUrl);
  return url.protocol === "https:" || url.protocol === "http:" ? url.origin : null;
}

/**
 * The claim URL when it may be followed (https, or http on loopback when `allowLoopbackHttp`; on `serviceOrigin`;
 * no user info), else null.
 */
export function allowedClaimUrl(
  claimUrl: string,
  serviceOrigin: string | null,
  options: { allowLoopbackHttp: boolean },
): string | null {
  if (!serviceOrigin || !URL.canParse(claimUrl)) return null;
  const url = new URL(claimUrl);
  if (url.origin !== serviceOrigin || url.username || url.password) return null;
  return url.protocol === "https:" ||
    (options.allowLoopbackHttp && url.protocol === "http:" && isLoopbackHost(url.hostname))
    ? claimUrl
    : null;
}
