// `npm run lint` holds the layers (eslint.config.js): an area importing Shopify's configuration, or any of app/
// importing what the shipped app must not carry (dev/, test/, scripts/, emulator/, server/), fails lint.
import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";

const eslint = new ESLint();

async function restrictions(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return result.messages.filter((m) => m.ruleId === "no-restricted-imports").map((m) => m.message);
}

describe("the layers in lint", () => {
  it("refuse app/shopify.server.ts in an area, and let the routes and the wiring have it", async () => {
    const line = (from: string) => `import { authenticate } from "${from}";\nexport const a = authenticate;\n`;
    expect(await restrictions("app/sync/new.server.ts", line("../shopify.server"))).toEqual([
      expect.stringMatching(/app\/sync\/ may not import app\/shopify\.server\.ts/),
    ]);
    expect(await restrictions("app/handoff/new.server.ts", line("~/shopify.server"))).toEqual([
      expect.stringMatching(/may not import app\/shopify\.server\.ts/),
    ]);
    expect(await restrictions("app/shopify/new.server.ts", line("../shopify.server"))).toEqual([
      expect.stringMatching(/may not import app\/shopify\.server\.ts/),
    ]);
    expect(await restrictions("app/routes/new.tsx", line("../shopify.server"))).toEqual([]);
    expect(await restrictions("app/runtime/new.server.ts", line("../shopify.server"))).toEqual([]);
  });

  it("refuse Shopify's configuration reaching back into an area", async () => {
    const code = `import { onAppInstalled } from "./privacy/lifecycle.server";\nexport const a = onAppInstalled;\n`;
    expect(await restrictions("app/shopify.server.ts", code)).toEqual([
      expect.stringMatching(/app\/shopify\.server\.ts may not import app\/privacy\//),
    ]);
  });

  it("refuse dev/, test/, scripts/, emulator/ and server/ anywhere in app/, root files included", async () => {
    for (const [file, from] of [
      ["app/handoff/new.server.ts", "../../dev/demo-store"],
      ["app/db.server.ts", "../dev/demo-store"],
      ["app/routes/new.tsx", "../../test/helpers/app"],
      ["app/lib/new.ts", "../../scripts/demo"],
      ["app/service/new.server.ts", "../../emulator/main"],
      ["app/runtime/new.server.ts", "../../server/request-handler"],
      ["app/entry.server.tsx", "~/../server/request-handler"],
    ]) {
      const found = await restrictions(file, `import { x } from "${from}";\nexport const a = x;\n`);
      expect(found, `${file} importing ${from}`).toEqual([
        expect.stringMatching(/app\/ may not import dev\/, test\/, scripts\/, emulator\/, server\//),
      ]);
    }
  });
});
