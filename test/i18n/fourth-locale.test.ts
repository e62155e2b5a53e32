// A fourth language is a file and nothing else: the app's i18n code and locale files copied as they are into a
// scratch project, plus a test-only Dutch file (test/fixtures/i18n/nl.json) in app/locales/admin/, loaded through
// Vite (the same import.meta.glob the client and server builds run): Dutch is found, chosen for Shopify's
// `locale=nl-BE`, worded from the file with Dutch plural rules, and Polaris' own Dutch strings come with it.
import { cpSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServer, type ViteDevServer } from "vite";

let dir = "";
let vite: ViteDevServer;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "i18n-fourth-"));
  cpSync("app/i18n", path.join(dir, "app/i18n"), { recursive: true });
  cpSync("app/locales", path.join(dir, "app/locales"), { recursive: true });
  cpSync("test/fixtures/i18n/nl.json", path.join(dir, "app/locales/admin/nl.json"));
  symlinkSync(path.resolve("node_modules"), path.join(dir, "node_modules"), "dir");
  vite = await createServer({
    root: dir,
    configFile: false,
    logLevel: "silent",
    server: { middlewareMode: true, hmr: false, watch: null },
    optimizeDeps: { noDiscovery: true, include: [] },
  });
}, 60_000);

afterAll(async () => {
  await vite?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("a fourth language added as a file", () => {
  it("is found, chosen from Shopify's locale and used, with no change to the code", async () => {
    const catalog = await vite.ssrLoadModule("/app/i18n/catalog.ts");
    const locale = await vite.ssrLoadModule("/app/i18n/locale.ts");
    const translate = await vite.ssrLoadModule("/app/i18n/translate.ts");
    expect(catalog.LOCALES).toEqual(["de", "en", "fr", "nl"]);
    expect(locale.resolveLocale("nl-BE")).toBe("nl");
    const nl = translate.translator("nl");
    expect(nl.t("home.title")).toBe("Startpagina");
    expect(nl.t("log.row.attempts", { count: 2 })).toBe("[nl] 2 attempts");
    expect(nl.dateTime("2026-11-22T05:14:00.000Z")).toBe("22-11-2026, 05:14 UTC");
    // The languages the app already had are unchanged.
    expect(translate.translator("de").t("home.title")).toBe("Startseite");
  });

  it("brings Polaris' own strings in that language", async () => {
    const polaris = await vite.ssrLoadModule("/app/i18n/polaris.server.ts");
    const strings = (await polaris.polarisTranslations("nl")) as { Polaris: { Pagination: { next: string } } };
    expect(strings.Polaris.Pagination.next).toBe("Volgende");
  });
});
