// Shopify's Admin API for the published theme's settings (ThemeEmbedStatus, app/admin/theme-setup.server.ts): the
// MAIN theme with its config/settings_data.json, which lists the app embed (on, off, or absent) like Shopify writes
// it, comment header included. The demo serves a theme with the embed on; tests pick.
import { HttpResponse } from "msw";
import { adminGraphqlLink } from "./orders";

export type EmbedSetting = "on" | "disabled" | "absent";

export function settingsData(embed: EmbedSetting, appHandle = "merchant-integration") {
  const blocks: Record<string, unknown> = {
    "1700000000000000001": { type: "shopify://apps/reviews/blocks/stars/0000-1111", disabled: false, settings: {} },
  };
  if (embed !== "absent") {
    blocks["1700000000000000002"] = { type: `shopify://apps/${appHandle}/blocks/continue-cart-embed/5f0c-4b1e`, disabled: embed === "disabled", settings: {} };
  }
  return `/*\n * IMPORTANT: The contents of this file are auto-generated.\n */\n${JSON.stringify({ current: { blocks }, presets: {} }, null, 2)}`;
}

export function themeHandlers(embed: EmbedSetting = "on", themeName = "Dawn") {
  return [
    adminGraphqlLink.query("ThemeEmbedStatus", () =>
      HttpResponse.json({
        data: { themes: { nodes: [{ name: themeName, files: { nodes: [{ body: { content: settingsData(embed) } }] } }] } },
      }),
    ),
  ];
}
