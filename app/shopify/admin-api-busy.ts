// A call made on a shopper's behalf was not sent: the shop's query cost bucket could not pay for it soon enough
// (app/shopify/admin-cost-budget.server.ts, forShopper). A module of its own, free of Shopify's library, so the domain can
// tell it apart without loading the app's Shopify configuration.
export class AdminApiBusy extends Error {
  override readonly name = "AdminApiBusy";
  constructor(readonly retryAfterMs: number) {
    super("Shopify's Admin API budget for this shop is spent for now");
  }
}
