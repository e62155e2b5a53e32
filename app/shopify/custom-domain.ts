// SHOP_CUSTOM_DOMAIN: shops at `<name>.<domain>` are accepted besides *.myshopify.com (Shopify's own development
// domains, for example). @shopify/shopify-api 15 no longer reads `customShopDomains`; it accepts a domain through
// `domainTransformations`, whose match (here: the shop at the custom domain) adds the domain to the shops and hosts
// its sanitizeShop / sanitizeHost accept, and whose transform maps the shop (here: to itself, unchanged). The
// variable's own shape (a bare domain) is checked with the rest of the configuration (app/env.server.ts).
import type { DomainTransformation } from "@shopify/shopify-api";

const escape = (domain: string) => domain.replace(/\./g, "\\.");

/** The library's option for SHOP_CUSTOM_DOMAIN (none when it is unset). */
export function customDomainTransformations(domain: string | undefined): DomainTransformation[] | undefined {
  if (!domain) return undefined;
  // The library reads the accepted domain back out of this pattern's source: it must end in `\.<domain>$`.
  return [{ match: new RegExp(`^([a-zA-Z0-9][a-zA-Z0-9-_]*)\\.${escape(domain)}$`), transform: `$1.${domain}` }];
}
