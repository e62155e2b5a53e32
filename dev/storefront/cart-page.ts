// The store's cart page as a theme would render it, with the real Continue cart block of the theme app extension
// (extensions/storefront) rendered by liquidjs: the block's Liquid, its snippet, its locales (by the shopper's
// locale) and, as Shopify does for app blocks, its schema's javascript and stylesheet as tags pointing at the
// extension's assets (served by the storefront stand-in under ASSET_PREFIX).
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Liquid, Tag, type Emitter, type TagToken, type TopLevelToken } from "liquidjs";
import type { Catalog } from "../admin-api/catalog";
import { displayTitle } from "../admin-api/catalog";

export const EXTENSION_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../extensions/storefront");
export const ASSET_PREFIX = "/_extension/storefront/assets/";

export interface CartState {
  token: string;
  items: { variant_id: string; quantity: number }[];
}

export interface BlockSettings {
  label?: string;
  style?: "primary" | "secondary" | "link";
  alignment?: "left" | "center" | "right";
  /** The block's "App proxy path" setting (default /apps/workspace): the store's proxy path when it was changed. */
  proxy_path?: string;
}

const readJson = (file: string) =>
  JSON.parse(readFileSync(path.join(EXTENSION_DIR, file), "utf8")) as Record<string, unknown>;

function lookup(obj: unknown, key: string): unknown {
  return key
    .split(".")
    .reduce<unknown>((o, k) => (o && typeof o === "object" ? (o as Record<string, unknown>)[k] : undefined), obj);
}

function engineFor(locale: string) {
  const engine = new Liquid({ root: [path.join(EXTENSION_DIR, "snippets")], extname: ".liquid", strictFilters: true });
  const fallback = readJson("locales/en.default.json");
  let translations = fallback;
  try {
    translations = readJson(`locales/${locale}.json`);
  } catch {
    // a locale the extension does not have: English, as Shopify falls back to the default locale
  }
  engine.registerFilter("t", (key: string) =>
    String(lookup(translations, key) ?? lookup(fallback, key) ?? `translation missing: ${key}`),
  );
  engine.registerFilter("asset_url", (name: string) => `${ASSET_PREFIX}${encodeURIComponent(name)}`);
  // {% schema %} is read by Shopify, not rendered.
  engine.registerTag(
    "schema",
    class extends Tag {
      constructor(token: TagToken, remain: TopLevelToken[], liquid: Liquid) {
        super(token, remain, liquid);
        while (remain.length) {
          const t = remain.shift()!;
          if (t.kind === 4 /* TokenKind.Tag */ && (t as TagToken).name === "endschema") return;
        }
      }
      render(_ctx: unknown, _emitter: Emitter) {}
    },
  );
  return engine;
}

/** The block's HTML, with the asset tags Shopify adds for its schema's javascript and stylesheet. */
export async function renderContinueCartBlock(
  cart: CartState,
  catalog: Catalog,
  settings: BlockSettings,
  locale = "en",
) {
  const source = readFileSync(path.join(EXTENSION_DIR, "blocks/continue-cart.liquid"), "utf8");
  const schema = JSON.parse(/\{% schema %\}([\s\S]*)\{% endschema %\}/.exec(source)![1]) as {
    javascript?: string;
    stylesheet?: string;
  };
  // Shopify's global objects are visible inside rendered snippets too: liquidjs globals, not the block's scope.
  const globals = {
    routes: { root_url: "/", cart_url: "/cart" },
    request: { locale: { iso_code: locale } },
    cart: liquidCart(cart, catalog),
  };
  const html = await engineFor(locale).parseAndRender(
    source,
    {
      block: {
        id: "continue-cart-1",
        settings: { label: "", style: "primary", alignment: "right", proxy_path: "/apps/workspace", ...settings },
        shopify_attributes: "",
      },
    },
    { globals },
  );
  const tags = [
    schema.stylesheet ? `<link rel="stylesheet" href="${ASSET_PREFIX}${schema.stylesheet}">` : "",
    schema.javascript ? `<script src="${ASSET_PREFIX}${schema.javascript}" defer></script>` : "",
  ].join("");
  return tags + html;
}

function liquidCart(cart: CartState, catalog: Catalog) {
  return {
    item_count: cart.items.reduce((n, i) => n + i.quantity, 0),
    items: cart.items.map((i) => ({ variant_id: i.variant_id, quantity: i.quantity })),
    currency: { iso_code: catalog.currency },
  };
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The cart page's main content: the lines (titles from the catalog) and the block. */
export async function renderCartPage(cart: CartState, catalog: Catalog, settings: BlockSettings = {}, locale = "en") {
  const rows = cart.items
    .map((i) => {
      const v = catalog.variants.get(i.variant_id);
      return `<tr><td>${escapeHtml(v ? displayTitle(v) : `Item ${i.variant_id}`)}</td><td>${i.quantity}</td></tr>`;
    })
    .join("");
  return `<h1>Your cart</h1><table class="cart"><tbody>${rows}</tbody></table>${await renderContinueCartBlock(cart, catalog, settings, locale)}`;
}

/** /cart.js as Shopify answers it (only what the block's script reads, plus a few usual fields). */
export function cartJson(cart: CartState, catalog: Catalog) {
  return {
    token: cart.token,
    item_count: cart.items.reduce((n, i) => n + i.quantity, 0),
    currency: catalog.currency,
    items: cart.items.map((i) => {
      const v = catalog.variants.get(i.variant_id);
      return {
        variant_id: Number(i.variant_id),
        quantity: i.quantity,
        title: v ? displayTitle(v) : "",
        sku: v?.sku ?? "",
      };
    }),
  };
}

export function extensionAsset(name: string): { body: string; contentType: string } | null {
  if (!/^[a-z0-9-]+\.(js|css)$/.test(name)) return null;
  try {
    const body = readFileSync(path.join(EXTENSION_DIR, "assets", name), "utf8");
    return { body, contentType: name.endsWith(".js") ? "text/javascript" : "text/css" };
  } catch {
    return null;
  }
}
