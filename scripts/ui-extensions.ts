// `npm run ui-extensions` (part of `npm run lint`): bundles every UI extension into build/extensions/<handle>/<target>.js
// as the Shopify CLI does (dev/ui-extensions/bundle.ts) and fails on a bundle error or a bundle over Shopify's size
// limit; `tsc -p extensions/tsconfig.json` type-checks the sources beside it.
import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { bundleUiExtensions, SIZE_LIMIT_BYTES } from "../dev/ui-extensions/bundle";

async function main() {
  const bundled = await bundleUiExtensions();
  let failed = 0;
  for (const ext of bundled) {
    for (const t of ext.targets) {
      const gz = gzipSync(readFileSync(t.file)).length;
      const over = t.bytes > SIZE_LIMIT_BYTES;
      if (over) failed += 1;
      console.log(
        `ui-extension ${ext.handle} ${t.target}: ${(t.bytes / 1024).toFixed(1)} KiB (${(gz / 1024).toFixed(1)} KiB gzipped)${over ? ` error: over Shopify's ${SIZE_LIMIT_BYTES / 1024} KiB limit` : ""}`,
      );
    }
  }
  if (bundled.length === 0) console.log("ui-extensions: none found");
  process.exit(failed > 0 ? 1 : 0);
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
