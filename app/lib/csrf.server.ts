// CSRF defence for storefront POSTs through Shopify's app proxy. The proxy strips cookies and may not pass on
// Origin or Sec-Fetch-Site, so those cannot be relied on; what it does pass is the page the app rendered. Each form
// therefore carries a token signed for one shop and one logged-in customer (HMAC-SHA256 with a key derived from
// the app's API secret), valid for two hours. Another site cannot read the proxied page, so it cannot forge a POST
// that Shopify would sign for the victim's session.
import { createHmac, timingSafeEqual } from "node:crypto";
import { env } from "../env.server";

export const CSRF_FIELD = "csrf_token";
const LIFETIME_SECONDS = 2 * 60 * 60;

const key = (secret: string) => createHmac("sha256", secret).update("storefront-csrf-v1").digest();
const mac = (secret: string, subject: string, issued: number) =>
  createHmac("sha256", key(secret)).update(`${subject}\n${issued}`).digest("base64url");

/** `subject` names who the form is for, e.g. `${shop}:${customerId}`. */
export function csrfToken(subject: string, options: { now?: number; secret?: string } = {}): string {
  const issued = Math.floor((options.now ?? Date.now()) / 1000);
  return `${issued}.${mac(options.secret ?? env().SHOPIFY_API_SECRET, subject, issued)}`;
}

export function checkCsrfToken(
  token: unknown,
  subject: string,
  options: { now?: number; secret?: string } = {},
): boolean {
  if (typeof token !== "string" || token.length > 200) return false;
  const match = /^(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(token);
  if (!match) return false;
  const issued = Number(match[1]);
  const age = Math.floor((options.now ?? Date.now()) / 1000) - issued;
  if (age < -60 || age > LIFETIME_SECONDS) return false;
  const expected = Buffer.from(mac(options.secret ?? env().SHOPIFY_API_SECRET, subject, issued));
  const given = Buffer.from(match[2]);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
