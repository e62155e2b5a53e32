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
