// Where the merchant's theme stands: theme editor deep links that open the editor with the app embed ready to switch
// on, or a block ready to add (Shopify's `activateAppId` / `addAppBlockId` with the app's API key and the block's
// handle, its file name under extensions/storefront/blocks), and whether the app embed is on in the published theme,
// read from its config/settings_data.json through the Admin API (read_themes), instead of asking the merchant to tick a
// box. The embed counts only when it is this app's: Shopify writes an app block's type as
// `shopify://apps/<app handle>/blocks/<block handle>/<extension id>`, and the app's handle comes from the same query
// (currentAppInstallation), so another app's block with the same file name is not taken for ours.
import type { AdminGraphql } from "../shopify/admin-api.server";

/** The blocks of the app's one theme app extension (extensions/storefront). */
export const EMBED_HANDLE = "continue-cart-embed";
export const BLOCKS = {
  continueCart: { handle: "continue-cart", template: "cart", target: "mainSection" },
  connectWorkspace: { handle: "connect-workspace", template: "customers/account", target: "newAppsSection" },
} as const;

export interface ThemeLinks {
  embed: string;
  continueCart: string;
  connectWorkspace: string;
}

export function themeEditorLinks(shop: string, apiKey: string): ThemeLinks {
  const editor = (params: Record<string, string>) =>
    `https://${shop}/admin/themes/current/editor?${new URLSearchParams(params)}`;
  const block = (b: (typeof BLOCKS)[keyof typeof BLOCKS]) =>
    editor({ template: b.template, addAppBlockId: `${apiKey}/${b.handle}`, target: b.target });
  return {
    embed: editor({ context: "apps", template: "index", activateAppId: `${apiKey}/${EMBED_HANDLE}` }),
    continueCart: block(BLOCKS.continueCart),
    connectWorkspace: block(BLOCKS.connectWorkspace),
  };
}

/** Why the embed's state is unknown: a code, worded by the page in the admin's language (home.embed.why.*). */
export type EmbedUnknownWhy = "noAccess" | "noTheme" | "noApp" | "unreadable" | "unreachable" | "timeout";

export type EmbedStatus = { state: "on" | "off"; themeName: string } | { state: "unknown"; why: EmbedUnknownWhy };

export const THEME_SETTINGS_QUERY = `#graphql
  query ThemeEmbedStatus {
    currentAppInstallation { app { handle } }
    themes(first: 1, roles: [MAIN]) {
      nodes {
        name
        files(filenames: ["config/settings_data.json"], first: 1) {
          nodes { body { ... on OnlineStoreThemeFileBodyText { content } } }
        }
      }
    }
  }`;

const MAX_SETTINGS_BYTES = 2 * 1024 * 1024;

/** settings_data.json may open with a /* comment *\/ (Shopify writes one); the JSON is what follows. */
function parseSettings(content: string): unknown {
  const start = content.indexOf("{");
  return start < 0 ? null : JSON.parse(content.slice(start));
}

/** Shopify's app handles: lowercase letters, digits, `-` and `_` (so one is safe inside a pattern). */
const APP_HANDLE = /^[a-z0-9_-]{1,256}$/;

/**
 * On when the published theme's settings list this app's embed block (type
 * `shopify://apps/<appHandle>/blocks/continue-cart-embed/<id>`) and it is not disabled. Pure, for the tests.
 */
export function embedEnabled(settings: unknown, appHandle: string, handle = EMBED_HANDLE): boolean {
  const blocks = (settings as { current?: { blocks?: Record<string, { type?: unknown; disabled?: unknown }> } } | null)
    ?.current?.blocks;
  if (!blocks || typeof blocks !== "object" || !APP_HANDLE.test(appHandle)) return false;
  const pattern = new RegExp(`^shopify://apps/${appHandle}/blocks/${handle}/[^/]+$`);
  return Object.values(blocks).some((b) => typeof b?.type === "string" && pattern.test(b.type) && b.disabled !== true);
}

/** Never throws: a missing scope, an unreachable API or an odd file answers "unknown" with the reason. */
export async function embedStatus(adminGraphql: AdminGraphql, shop: string): Promise<EmbedStatus> {
  try {
    const answer = (await adminGraphql(shop, THEME_SETTINGS_QUERY, {})) as {
      data?: {
        currentAppInstallation?: { app?: { handle?: unknown } };
        themes?: { nodes?: { name?: string; files?: { nodes?: { body?: { content?: string } }[] } }[] };
      };
      errors?: unknown;
    };
    if (answer?.errors)
      return {
        state: "unknown",
        why: "noAccess",
      };
    const theme = answer?.data?.themes?.nodes?.[0];
    if (!theme) return { state: "unknown", why: "noTheme" };
    const appHandle = answer.data?.currentAppInstallation?.app?.handle;
    if (typeof appHandle !== "string" || !APP_HANDLE.test(appHandle)) return { state: "unknown", why: "noApp" };
    const content = theme.files?.nodes?.[0]?.body?.content;
    if (typeof content !== "string" || content.length > MAX_SETTINGS_BYTES)
      return { state: "unknown", why: "unreadable" };
    let settings: unknown;
    try {
      settings = parseSettings(content);
    } catch {
      return { state: "unknown", why: "unreadable" };
    }
    return {
      state: embedEnabled(settings, appHandle) ? "on" : "off",
      themeName: String(theme.name ?? "").slice(0, 100),
    };
  } catch {
    return { state: "unknown", why: "unreachable" };
  }
}
