// `npm run lint` runs this: Shopify's Theme Check (the theme app extension rules) on every theme extension under
// extensions/. Prints each offence with its file and line and exits 1 when there is an error or a warning.
import { readdirSync, readFileSync, existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { check, Severity } from "@shopify/theme-check-node";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const EXTENSIONS = path.join(ROOT, "extensions");

const themeExtensions = readdirSync(EXTENSIONS, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => path.join(EXTENSIONS, d.name))
  .filter((dir) => {
    const toml = path.join(dir, "shopify.extension.toml");
    return existsSync(toml) && /^type\s*=\s*"theme"\s*$/m.test(readFileSync(toml, "utf8"));
  });

let failed = 0;
for (const dir of themeExtensions) {
  const offenses = await check(dir, path.join(dir, ".theme-check.yml"));
  for (const o of offenses) {
    const file = path.relative(ROOT, fileURLToPath(o.uri));
    const severity = o.severity === Severity.ERROR ? "error" : o.severity === Severity.WARNING ? "warning" : "info";
    console.log(`${file}:${o.start.line + 1}:${o.start.character + 1} ${severity} ${o.check}: ${o.message}`);
    if (o.severity !== Severity.INFO) failed += 1;
  }
  console.log(`theme-check ${path.relative(ROOT, dir)}: ${offenses.length} offence(s)`);
}
process.exit(failed > 0 ? 1 : 0);
