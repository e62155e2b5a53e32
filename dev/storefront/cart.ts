// The storefront's cart, kept by the stand-in the way Shopify keeps it: one cart per `cart` cookie token, read
// and changed through the Ajax API (/cart.js, /cart/add.js, /cart/change.js, /cart/clear.js). In memory: a
// restart of the demo empties every cart, as carts expire on a real store.
import { randomBytes } from "node:crypto";
import { DEMO_CURRENCY, DEMO_PRODUCTS, type DemoProduct } from "../demo-store";

export const MAX_LINES = 50;
export const MAX_QUANTITY = 99;
const MAX_CARTS = 10_000;

interface Line {
  product: DemoProduct;
  quantity: number;
}

export interface CartJson {
  token: string;
  note: string | null;
  attributes: Record<string, string>;
  item_count: number;
  total_price: number;
  currency: string;
  requires_shipping: boolean;
  items: ReturnType<typeof itemJson>[];
}

const cents = (price: string) => Math.round(Number(price) * 100);

function itemJson(line: Line) {
  const price = cents(line.product.price);
  return {
    id: Number(line.product.variantId),
    variant_id: Number(line.product.variantId),
    product_id: Number(line.product.id),
    key: `${line.product.variantId}:demo`,
    quantity: line.quantity,
    title: line.product.title,
    product_title: line.product.title,
    handle: line.product.handle,
    sku: line.product.sku,
    url: `/products/${line.product.handle}`,
    price,
    final_price: price,
    line_price: price * line.quantity,
    final_line_price: price * line.quantity,
    requires_shipping: true,
  };
}

export class CartError extends Error {
  constructor(
    readonly status: number,
    readonly description: string,
  ) {
    super(description);
  }
}

export class Carts {
  private readonly carts = new Map<string, Line[]>();

  /** The cart behind a cookie token, or a new empty one (its token goes back in the cookie). */
  open(token: string | undefined): { token: string; created: boolean } {
    if (token && /^[a-f0-9]{32}$/.test(token) && this.carts.has(token)) return { token, created: false };
    if (this.carts.size >= MAX_CARTS) this.carts.delete(this.carts.keys().next().value!);
    const fresh = randomBytes(16).toString("hex");
    this.carts.set(fresh, []);
    return { token: fresh, created: true };
  }

  json(token: string): CartJson {
    const lines = this.carts.get(token) ?? [];
    const items = lines.map(itemJson);
    return {
      token,
      note: null,
      attributes: {},
      item_count: lines.reduce((n, l) => n + l.quantity, 0),
      total_price: items.reduce((n, i) => n + i.line_price, 0),
      currency: DEMO_CURRENCY,
      requires_shipping: items.length > 0,
      items,
    };
  }

  /** /cart/add.js: a variant id and a quantity (added to what the cart holds). */
  add(token: string, variantId: unknown, quantity: unknown) {
    const product = DEMO_PRODUCTS.find((p) => p.variantId === String(variantId));
    if (!product) throw new CartError(404, "Cannot find variant");
    const qty = quantity === undefined || quantity === "" ? 1 : Number(quantity);
    if (!Number.isInteger(qty) || qty < 1 || qty > MAX_QUANTITY)
      throw new CartError(422, `Quantity must be 1 to ${MAX_QUANTITY}`);
    const lines = this.carts.get(token)!;
    const line = lines.find((l) => l.product === product);
    if (line) line.quantity = Math.min(MAX_QUANTITY, line.quantity + qty);
    else if (lines.length >= MAX_LINES) throw new CartError(422, "The cart is full");
    else lines.push({ product, quantity: qty });
    return itemJson(line ?? lines[lines.length - 1]);
  }

  /** /cart/change.js: a line (1-based) or variant id/key, and its new quantity (0 removes it). */
  change(token: string, input: { id?: unknown; line?: unknown; quantity?: unknown }) {
    const lines = this.carts.get(token)!;
    const qty = Number(input.quantity);
    if (!Number.isInteger(qty) || qty < 0 || qty > MAX_QUANTITY)
      throw new CartError(422, `Quantity must be 0 to ${MAX_QUANTITY}`);
    const variant = String(input.id ?? "").split(":")[0];
    const index =
      input.line !== undefined ? Number(input.line) - 1 : lines.findIndex((l) => l.product.variantId === variant);
    if (!Number.isInteger(index) || index < 0 || index >= lines.length)
      throw new CartError(400, "No such line in the cart");
    if (qty === 0) lines.splice(index, 1);
    else lines[index].quantity = qty;
  }

  clear(token: string) {
    this.carts.set(token, []);
  }
}
