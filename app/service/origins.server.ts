// Tokens never go to a server that did not issue them. A customer's grant is bound to the service origins (auth
// URL, base URL, sandbox base URL) in force when its tokens were issued; if the merchant's settings point anywhere
// else later, the tokens are not sent there (no import, no refresh, no revocation) and the customer must
// reconnect. Origins only: a changed path on the same host is the same server.
import type { ServiceSettings } from "./context.server";

export const ORIGIN_CHANGED_REASON =
  "The service address (base, sandbox or auth URL) changed since this customer connected; their tokens are never sent to another address. They must reconnect.";

const originOf = (url: string) => (URL.canParse(url) ? new URL(url).origin : "");

/** The canonical binding stored with a grant (CustomerGrant.boundOrigins). */
export function serviceOrigins(settings: Pick<ServiceSettings, "authUrl" | "baseUrl" | "sandboxBaseUrl">): string {
  return `auth=${originOf(settings.authUrl)} base=${originOf(settings.baseUrl)} sandbox=${originOf(settings.sandboxBaseUrl)}`;
}

/**
 * Whether tokens (a grant's, or a connection's pending ones) may be sent with these settings: only to the origins
 * that issued them. No binding (null): never sent anywhere (the migration bound the grants of the time).
 */
export function tokensMayGoTo(
  boundOrigins: string | null | undefined,
  settings: Pick<ServiceSettings, "authUrl" | "baseUrl" | "sandboxBaseUrl">,
): boolean {
  return boundOrigins != null && boundOrigins === serviceOrigins(settings);
}
