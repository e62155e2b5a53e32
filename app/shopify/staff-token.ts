// Admin session tokens (App Bridge's, for the admin's own extensions such as the order page block) are told apart
// from every other token Shopify signs with the app's secret before Shopify's library sees them: the library's
// admin path reads `dest` as a URL and would throw on a customer account token's bare shop domain (a 500), and it
// checks neither `iss` nor `sub`. A staff token names its shop twice (`dest` https://<shop>, `iss`
// https://<shop>/admin), a staff user as `sub` (a number), and this app as `aud`. The signature and the times are
// still the library's to check.
import { decodeJwt } from "jose";
import { SHOP_DOMAIN } from "./webhook-headers";

/** The shop a token claims to be a staff token of, or null when it is not shaped like one. */
export function staffTokenShop(token: string, options: { apiKey: string; customDomain?: string }): string | null {
  let claims: Record<string, unknown>;
  try {
    claims = decodeJwt(token);
  } catch {
    return null;
  }
  const shop = /^https:\/\/([^/?#]+)$/.exec(typeof claims.dest === "string" ? claims.dest : "")?.[1];
  if (!shop) return null;
  const custom =
    options.customDomain && shop.endsWith(`.${options.customDomain}`) && /^[a-z0-9][a-z0-9-]*\./.test(shop);
  if (!SHOP_DOMAIN.test(shop) && !custom) return null;
  if (claims.iss !== `https://${shop}/admin`) return null;
  if (typeof claims.sub !== "string" || !/^[1-9][0-9]{0,19}$/.test(claims.sub)) return null;
  const audiences = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
  if (!audiences.includes(options.apiKey)) return null;
  return shop;
}
