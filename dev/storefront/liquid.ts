// Shopify's storefront rendering, as much of it as the demo and the tests need, with liquidjs: the theme's
// templates (dev/storefront/theme), the app's theme app extension blocks exactly as they ship (extensions/*/blocks,
// their schema's setting defaults, their locales for `| t`, their assets), and the Liquid the app answers through
// the app proxy, rendered inside the theme's layout.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Liquid } from "liquidjs";
import { DEMO_CURRENCY } from "../demo-store";

const HERE = path.dirname(fileURLToPath(import.meta.url));
export const THEME_DIR = path.join(HERE, "theme");
export const EXTENSIONS_DIR = path.resolve(HERE, "../../extensions");

const SCHEMA = /\{%-?\s*schema\s*-?%\}([\s\S]*?)\{%-?\s*endschema\s*-?%\}/;

/** Cents → "€12.50", like Shopify's `money` filter with the store's format. */
export function money(cents: unknown): string {
  const value = Number(cents) / 100;
  return new Intl.NumberFormat("en-IE", { style: "currency", currency: DEMO_CURRENCY }).format(
    Number.isFinite(value) ? value : 0,
  );
}

function lookup(tree: unknown, key: string): string | undefined {
  let node = tree;
  for (const part of key.split("."))
    node = node && typeof node === "object" ? (node as Record<string, unknown>)[part] : undefined;
  return typeof node === "string" ? node : undefined;
}

function engine(root: string[], locales: unknown, assetBase: string): Liquid {
  const liquid = new Liquid({ root, extname: ".liquid", cache: true, jsTruthy: false, ownPropertyOnly: true });
  liquid.registerFilter("money", money);
  liquid.registerFilter("money_with_currency", (cents: unknown) => `${money(cents)} ${DEMO_CURRENCY}`);
  liquid.registerFilter("t", (key: unknown, vars?: Record<string, unknown>) => {
    const text = lookup(locales, String(key)) ?? String(key);
    return text.replace(/\{\{\s*(\w+)\s*\}\}/g, (_, name: string) => String(vars?.[name] ?? ""));
  });
  liquid.registerFilter("asset_url", (file: unknown) => `${assetBase}/${encodeURIComponent(String(file))}`);
  liquid.registerFilter("stylesheet_tag", (url: unknown) => `<link rel="stylesheet" href="${String(url)}">`);
  liquid.registerFilter("script_tag", (url: unknown) => `<script src="${String(url)}" defer></script>`);
  liquid.registerFilter("handleize", (s: unknown) =>
    String(s)
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-|-$/g, ""),
  );
  return liquid;
}

export interface AppBlock {
  extension: string;
  name: string;
  /** "section" (an app block merchants place in a section) or "body"/"head" (an app embed). */
  target: string;
  defaults: Record<string, unknown>;
  assets: { javascript?: string; stylesheet?: string };
  source: string;
  liquid: Liquid;
}

/** Every block of every theme app extension in extensions/, with its schema read as Shopify reads it. */
export function loadAppBlocks(dir = EXTENSIONS_DIR): AppBlock[] {
  const blocks: AppBlock[] = [];
  if (!existsSync(dir)) return blocks;
  for (const extension of readdirSync(dir)) {
    const blocksDir = path.join(dir, extension, "blocks");
    if (!existsSync(blocksDir)) continue;
    const localeFile = path.join(dir, extension, "locales", "en.default.json");
    const locales = existsSync(localeFile) ? JSON.parse(readFileSync(localeFile, "utf8")) : {};
    const liquid = engine(
      [blocksDir, path.join(dir, extension, "snippets")],
      locales,
      `/cdn/extensions/${extension}/assets`,
    );
    for (const file of readdirSync(blocksDir).filter((f) => f.endsWith(".liquid"))) {
      const raw = readFileSync(path.join(blocksDir, file), "utf8");
      const schema = JSON.parse(SCHEMA.exec(raw)?.[1] ?? "{}") as {
        target?: string;
        settings?: { id?: string; default?: unknown }[];
        javascript?: string;
        stylesheet?: string;
      };
      const defaults = Object.fromEntries(
        (schema.settings ?? []).filter((s) => s.id).map((s) => [s.id!, s.default ?? null]),
      );
      blocks.push({
        extension,
        name: file.replace(/\.liquid$/, ""),
        target: schema.target ?? "section",
        defaults,
        assets: { javascript: schema.javascript, stylesheet: schema.stylesheet },
        source: raw.replace(SCHEMA, ""),
        liquid,
      });
    }
  }
  return blocks;
}

/**
 * One app block rendered with the page's globals, its settings at their defaults (or as `settings` changes them,
 * as a merchant does in the theme editor), plus the assets it declares.
 */
export async function renderAppBlock(
  block: AppBlock,
  globals: Record<string, unknown>,
  id: string,
  settings: Record<string, unknown> = {},
): Promise<string> {
  const known = Object.fromEntries(Object.entries(settings).filter(([key]) => key in block.defaults));
  const scope = {
    block: {
      id,
      type: `shopify://apps/workspace/blocks/${block.name}`,
      settings: { ...block.defaults, ...known },
      shopify_attributes: `data-block-id="${id}"`,
    },
  };
  // Shopify's objects (cart, routes, request, customer…) are global: snippets rendered with `render` see them too.
  const html = await block.liquid.parseAndRender(block.source, scope, { globals });
  const base = `/cdn/extensions/${block.extension}/assets`;
  const css = block.assets.stylesheet ? `<link rel="stylesheet" href="${base}/${block.assets.stylesheet}">` : "";
  const js = block.assets.javascript ? `<script src="${base}/${block.assets.javascript}" defer></script>` : "";
  return `<div class="shopify-app-block" data-app-block="${block.name}">${css}${html}${js}</div>`;
}

const themeLocales = () => JSON.parse(readFileSync(path.join(THEME_DIR, "locales", "en.default.json"), "utf8"));
let theme: Liquid | undefined;

/** The theme's engine (templates, layout, snippets). */
export function themeEngine(): Liquid {
  theme ??= engine(
    [path.join(THEME_DIR, "templates"), path.join(THEME_DIR, "snippets"), path.join(THEME_DIR, "layout")],
    themeLocales(),
    "/cdn/theme/assets",
  );
  return theme;
}

/** A page: `templates/<template>.liquid` (or ready Liquid source) inside `layout/theme.liquid`. */
export async function renderPage(
  template: { name: string } | { source: string },
  globals: Record<string, unknown>,
): Promise<string> {
  const liquid = themeEngine();
  const content =
    "name" in template
      ? await liquid.renderFile(template.name, {}, { globals })
      : await liquid.parseAndRender(template.source, {}, { globals });
  return liquid.renderFile("theme", { content_for_layout: content }, { globals });
}

/**
 * The Liquid an app proxy route answered (Content-Type application/liquid), rendered as Shopify does: inside the
 * theme's layout, or alone when it starts with `{% layout none %}`.
 */
export async function renderProxyLiquid(body: string, globals: Record<string, unknown>): Promise<string> {
  const none = /\{%-?\s*layout\s+none\s*-?%\}/;
  if (none.test(body)) return themeEngine().parseAndRender(body.replace(none, ""), {}, { globals });
  return renderPage({ source: body }, globals);
}

/** The theme's sections the Section Rendering API answers for (each is one of the theme's snippets). */
export const SECTIONS = new Set(["cart-drawer", "cart-icon-bubble"]);
/** Shopify renders at most five sections per request. */
export const MAX_SECTIONS = 5;

/** A section as the Section Rendering API answers it: its HTML inside Shopify's section wrapper, or null if unknown. */
export async function renderSection(id: string, globals: Record<string, unknown>): Promise<string | null> {
  if (!SECTIONS.has(id)) return null;
  const html = await themeEngine().renderFile(id, globals, { globals });
  return `<div id="shopify-section-${id}" class="shopify-section">${html}</div>`;
}

/** The `sections` parameter (a comma-separated string or an array) → the ids asked for, at most five. */
export function sectionIds(value: unknown): string[] {
  const list = Array.isArray(value) ? value : typeof value === "string" ? value.split(",") : [];
  return [
    ...new Set(
      list
        .filter((v): v is string => typeof v === "string")
        .map((v) => v.trim())
        .filter(Boolean),
    ),
  ].slice(0, MAX_SECTIONS);
}
