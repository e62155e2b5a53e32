// No hand edit before deploy: the customer account extensions reach the app at its configured URL because Shopify's
// CLI puts APP_URL into their bundles (`process.env.APP_URL`), and `npm run deploy` (scripts/shopify-cli.ts) sets
// it from the application_url of the app's configuration. Shown with the real CLI, offline.
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { configFile, deployAppUrl } from "../../scripts/shopify-cli";
import { ROOT } from "../../dev/build";

describe("the app's URL in the extensions", () => {
  it("npm run deploy takes it from application_url, and refuses the placeholder of an unlinked app", () => {
    expect(() => deployAppUrl(readFileSync(path.join(ROOT, "shopify.app.toml"), "utf8"))).toThrow(
      /shopify app config link/,
    );
    expect(deployAppUrl('client_id = "abc"\napplication_url = "https://workspace-app.example.net/"\n')).toBe(
      "https://workspace-app.example.net",
    );
    expect(() => deployAppUrl('application_url = "http://workspace-app.example.net"')).toThrow(/https/);
    expect(() => deployAppUrl('name = "x"')).toThrow(/not a URL/);
    expect(configFile([], "/app")).toBe("/app/shopify.app.toml");
    expect(configFile(["--config", "production"], "/app")).toBe("/app/shopify.app.production.toml");
    expect(configFile(["-c", "shopify.app.staging.toml", "--force"], "/app")).toBe("/app/shopify.app.staging.toml");
    expect(configFile(["--config=staging"], "/app")).toBe("/app/shopify.app.staging.toml");
  });

  it("Shopify's CLI builds the app offline and puts APP_URL into the customer account extensions' bundles", () => {
    const appUrl = "https://workspace-app.example.net";
    const cli = spawnSync(path.join(ROOT, "node_modules/.bin/tsx"), ["scripts/shopify-cli.ts", "build"], {
      cwd: ROOT,
      env: { ...process.env, APP_URL: appUrl },
      encoding: "utf8",
      timeout: 120_000,
    });
    expect(cli.status, cli.stdout + cli.stderr).toBe(0);
    for (const handle of ["workspace-account", "workspace-connect"]) {
      const dist = path.join(ROOT, "extensions/workspace-account/dist");
      const bundle = readdirSync(dist).find((f) => f === `${handle}.js`);
      expect(bundle, handle).toBeDefined();
      const code = readFileSync(path.join(dist, bundle!), "utf8");
      expect(code.includes(JSON.stringify(appUrl)), `${handle} carries the app's URL`).toBe(true);
      expect(code.includes("process.env.APP_URL"), `${handle} has no process.env left`).toBe(false);
    }
  }, 150_000);
});
