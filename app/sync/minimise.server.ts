// Data minimisation at intake: what is kept of a Shopify order or fulfillment webhook before it is stored (the
// delivery row, and through it the job). An allowlist, not a blocklist: a field Shopify adds tomorrow is dropped
// until someone decides we need it. Kept are the fields the mapping (app/sync/mapping.server.ts) reads, the ids and
// dates the worker and the admin use, and a short display name for the customer. Never kept: email, phone, full
// names, addresses (billing, shipping, destination), notes and note attributes, line item properties, client
// details, browser IP, landing site, payment and price details. docs/privacy.md lists the kept fields.
type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);
// eslint-disable-next-line no-control-regex -- removing NUL is the point
const NUL = /\u0000/g;

/**
 * Text as PostgreSQL can store it: no NUL (text and jsonb refuse it) and no lone UTF-16 surrogate (jsonb refuses
 * the escape JSON.stringify writes for one). One delivery's odd byte must not fail the batch it is written with.
 */
export function storableText(value: string): string {
  return value
    .replace(NUL, "")
    .replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, "\uFFFD");
}

const asId = (value: unknown) =>
  typeof value === "string"
    ? storableText(value)
    : typeof value === "number" && Number.isFinite(value)
      ? value
      : undefined;
const asText = (value: unknown) => (typeof value === "string" ? storableText(value) : undefined);
const asCount = (value: unknown) => (typeof value === "number" && Number.isFinite(value) ? value : undefined);

/** Copies only the listed fields, each through its type check; anything else (or of another type) is left out. */
function pick(source: unknown, fields: Record<string, (value: unknown) => unknown>): Json {
  const out: Json = {};
  if (!isObject(source)) return out;
  for (const [name, check] of Object.entries(fields)) {
    const value = check(source[name]);
    if (value !== undefined) out[name] = value;
  }
  return out;
}

const list = (fields: Record<string, (value: unknown) => unknown>) => (value: unknown) =>
  Array.isArray(value) ? value.map((item) => pick(item, fields)) : undefined;

/**
 * What the admin may show for a customer without keeping their name: the first name and the initial of the last
 * name ("Ada L."), at most 40 characters. Null when Shopify sent no first name.
 */
export function customerDisplayName(customer: unknown): string | null {
  if (!isObject(customer)) return null;
  const first = asText(customer.first_name)?.trim();
  if (!first) return null;
  const initial = asText(customer.last_name)?.trim().charAt(0);
  return storableText(`${first}${initial ? ` ${initial.toUpperCase()}.` : ""}`.slice(0, 40)); // a cut pair made whole
}

const ORDER_LINE = {
  id: asId,
  title: asText,
  name: asText,
  quantity: asCount,
  current_quantity: asCount,
  fulfillable_quantity: asCount,
  sku: asText,
  product_id: asId,
  variant_id: asId,
};

const ORDER = {
  id: asId,
  admin_graphql_api_id: asText,
  name: asText, // the order's number, e.g. "#1001"
  created_at: asText,
  updated_at: asText,
  cancelled_at: asText,
  currency: asText,
  line_items: list(ORDER_LINE),
};

const FULFILLMENT = {
  id: asId,
  admin_graphql_api_id: asText,
  order_id: asId,
  created_at: asText,
  updated_at: asText,
  status: asText,
  tracking_company: asText,
  tracking_number: asText,
  tracking_numbers: (value: unknown) =>
    Array.isArray(value) ? value.filter((v) => typeof v === "string").map(storableText) : undefined,
  line_items: list({ id: asId, quantity: asCount }),
};

/**
 * The fields Shopify is asked to send at all (`include_fields` of the order and fulfillment subscriptions in
 * shopify.app.toml, a test holds them equal): what the allowlists above keep, nested fields with a period.
 */
export function includeFields(kind: "order" | "shipment"): string[] {
  if (kind === "order") {
    return [
      ...Object.keys(ORDER).filter((f) => f !== "line_items"),
      ...Object.keys(ORDER_LINE).map((f) => `line_items.${f}`),
      "customer.id",
      "customer.first_name",
      "customer.last_name",
    ];
  }
  return [...Object.keys(FULFILLMENT).filter((f) => f !== "line_items"), "line_items.id", "line_items.quantity"];
}

export function minimiseOrder(payload: unknown): Json {
  const order = pick(payload, ORDER);
  const customer = isObject(payload) ? payload.customer : undefined;
  const customerId = isObject(customer) ? asId(customer.id) : undefined;
  order.customer = customerId === undefined ? null : { id: customerId, display_name: customerDisplayName(customer) };
  return order;
}

export function minimiseFulfillment(payload: unknown): Json {
  return pick(payload, FULFILLMENT);
}

/** The stored form of a webhook payload: orders and fulfillments minimised, anything else reduced to its id. */
export function minimiseWebhookPayload(kind: "order" | "shipment" | undefined, payload: unknown): Json {
  if (kind === "order") return minimiseOrder(payload);
  if (kind === "shipment") return minimiseFulfillment(payload);
  return pick(payload, { id: asId });
}
