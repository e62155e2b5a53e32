// The UI extensions as a deploy would take them: each shopify.extension.toml's targets found and bundled by
// dev/ui-extensions/bundle.ts (what `npm run lint` runs), under Shopify's size limit, self-contained ESM; the network
// capability the blocks need declared; every locale carrying the same keys as the default one.
import { mkdtempSync, readFileSync, readdirSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { bundleUiExtensions, findUiExtensions, SIZE_LIMIT_BYTES } from "../../dev/ui-extensions/bundle";

const keysOf = (value: unknown, prefix = ""): string[] =>
  value && typeof value === "object"
    ? Object.entries(value as Record<string, unknown>).flatMap(([k, v]) => keysOf(v, prefix ? `${prefix}.${k}` : k))
    : [prefix];

describe("UI extensions", () => {
  it("finds the customer account extensions: both blocks, the Connect workspace page on its own, network access", () => {
    const found = findUiExtensions();
    const blocks = found.find((e) => e.handle === "workspace-account");
    const page = found.find((e) => e.handle === "workspace-connect");
    expect(blocks?.targets.map((t) => t.target)).toEqual([
      "customer-account.profile.block.render",
      "customer-account.order-status.block.render",
    ]);
    // Shopify allows no other target beside a full-page one in the same extension.
    expect(page?.targets.map((t) => t.target)).toEqual(["customer-account.page.render"]);
    for (const ext of [blocks, page]) {
      expect(ext?.apiVersion).toMatch(/^\d{4}-(01|04|07|10)$/);
      expect(ext?.capabilities).toMatchObject({ network_access: true });
    }
  });

  it("bundles every target into one self-contained ESM file under Shopify's limit", async () => {
    const out = mkdtempSync(path.join(os.tmpdir(), "ui-bundle-"));
    const bundled = await bundleUiExtensions(out, { appUrl: "https://app.example.com" });
    expect(bundled.length).toBeGreaterThan(0);
    for (const ext of bundled) {
      for (const t of ext.targets) {
        expect(t.bytes).toBeLessThan(SIZE_LIMIT_BYTES);
        const code = readFileSync(t.file, "utf8");
        // Booleans, not the code in a failure message (the bundle is long).
        expect(/\bimport\s*[{*\w][^;]*from\s*["']/.test(code), "an import left to resolve at run time").toBe(false);
        expect(/export\s*\{[^}]*as default\s*\}/.test(code), "a default export").toBe(true);
        if (ext.handle.startsWith("workspace-")) {
          expect(
            code.includes('"https://app.example.com"') && code.includes("/customer-account/"),
            "calls the given app URL",
          ).toBe(true);
        }
      }
    }
  });

  it("package.json lists each package once, @shopify/ui-extensions at the extensions' api_version", () => {
    const pkg = JSON.parse(readFileSync("package.json", "utf8")) as {
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
    };
    expect(Object.keys(pkg.dependencies).filter((name) => name in pkg.devDependencies)).toEqual([]);
    const [year, month] = pkg.dependencies["@shopify/ui-extensions"].replace(/^[~^]/, "").split(".");
    for (const ext of findUiExtensions()) expect(ext.apiVersion).toBe(`${year}-${month.padStart(2, "0")}`);
  });

  it("every locale has exactly the default locale's keys", () => {
    for (const ext of findUiExtensions()) {
      const dir = path.join(ext.dir, "locales");
      const base = keysOf(JSON.parse(readFileSync(path.join(dir, "en.default.json"), "utf8"))).sort();
      const others = readdirSync(dir).filter((f) => f.endsWith(".json") && f !== "en.default.json");
      expect(others.sort()).toEqual(["de.json", "fr.json"]);
      for (const file of others)
        expect(keysOf(JSON.parse(readFileSync(path.join(dir, file), "utf8"))).sort(), `${ext.handle} ${file}`).toEqual(
          base,
        );
    }
  });
});
