// Shopify's Admin API for the published theme's settings (ThemeEmbedStatus, app/admin/theme-setup.server.ts): the
// MAIN theme with its config/settings_data.json, which lists the app embed (on, off, or absent) like Shopify writes
// it, comment header included, beside the app's own handle (currentAppInstallation). The settings always carry
// another app's embed with the same block file name, which must not count as ours. The demo serves a theme with
// the embed on; tests pick.
import { HttpResponse } from "msw";
import { adminGraphqlLink } from "./orders";

export type EmbedSetting = "on" | "disabled" | "absent";

/** The app's handle as Shopify's Admin API gives it (App.handle). */
export const DEMO_APP_HANDLE = "merchant-integration";

export function settingsData(embed: EmbedSetting, appHandle = DEMO_APP_HANDLE) {
  const blocks: Record<string, unknown> = {
    "1700000000000000001": { type: "shopify://apps/reviews/blocks/stars/0000-1111", disabled: false, settings: {} },
    // Another app whose embed has the same file name as ours, switched on.
    "1700000000000000003": {
      type: "shopify://apps/cart-tools/blocks/continue-cart-embed/9a9a-0101",
      disabled: false,
      settings: {},
    },
  };
  if (embed !== "absent") {
    blocks["1700000000000000002"] = {
      type: `shopify://apps/${appHandle}/blocks/continue-cart-embed/5f0c-4b1e`,
      disabled: embed === "disabled",
      settings: {},
    };
  }
  return `/*\n * IMPORTANT: The contents of this file are auto-generated.\n */\n${JSON.stringify({ current: { blocks }, presets: {} }, null, 2)}`;
}

export function themeHandlers(embed: EmbedSetting = "on", themeName = "Dawn") {
  return [
    adminGraphqlLink.query("ThemeEmbedStatus", () =>
      HttpResponse.json({
        data: {
          currentAppInstallation: { app: { handle: DEMO_APP_HANDLE } },
          themes: { nodes: [{ name: themeName, files: { nodes: [{ body: { content: settingsData(embed) } }] } }] },
        },
      }),
    ),
  ];
}
