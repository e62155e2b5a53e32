// Links into the merchant's own Shopify admin. Inside the admin, App Bridge opens `shopify:admin/...` links in the
// admin around the app (the same store, whatever its admin address). Client-safe.
export const adminOrderLink = (orderId: string) => `shopify:admin/orders/${encodeURIComponent(orderId)}`;
export const adminCustomerLink = (customerId: string) => `shopify:admin/customers/${encodeURIComponent(customerId)}`;
