// Session tokens as App Bridge mints them inside Shopify's admin (HS256 with the app's API secret). The demo's
// stand-in adds one to every admin request; tests open embedded pages with one.
import { randomUUID } from "node:crypto";
import { SignJWT } from "jose";

export interface SessionTokenOptions {
  apiKey: string;
  secret: string;
  lifetimeSeconds?: number;
}

export async function mintSessionToken(shop: string, options: SessionTokenOptions): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ dest: `https://${shop}`, sid: randomUUID() })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setIssuer(`https://${shop}/admin`)
    .setAudience(options.apiKey)
    .setSubject("1")
    .setIssuedAt(now - 5)
    .setNotBefore(now - 5)
    .setExpirationTime(now + (options.lifetimeSeconds ?? 600))
    .setJti(randomUUID())
    .sign(new TextEncoder().encode(options.secret));
}

export interface CustomerAccountTokenOptions extends SessionTokenOptions {
  /** Seconds relative to now for iat/nbf (a negative lifetime gives an expired token). */
  issuedAgoSeconds?: number;
}

/**
 * A session token as Shopify gives a customer account UI extension (`shopify.sessionToken.get()`): HS256 with the
 * app's API secret, `dest` the shop's myshopify domain, `sub` the logged-in customer's GID, `aud` the app's key.
 * `customerId` null: no `sub`, as on the pre-authenticated Order status page, where nobody has signed in.
 */
export async function mintCustomerAccountToken(
  shop: string,
  customerId: string | null,
  options: CustomerAccountTokenOptions,
): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const issued = now - (options.issuedAgoSeconds ?? 5);
  const token = new SignJWT({ dest: shop })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setAudience(options.apiKey);
  if (customerId !== null) token.setSubject(`gid://shopify/Customer/${customerId}`);
  return token
    .setIssuedAt(issued)
    .setNotBefore(issued)
    .setExpirationTime(now + (options.lifetimeSeconds ?? 300))
    .setJti(randomUUID())
    .sign(new TextEncoder().encode(options.secret));
}
