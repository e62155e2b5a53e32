// `npm run demo`: the whole thing on this machine with no Shopify account and no server.
// - the service emulator on :8787 (its sandbox credentials are printed for the Settings page),
// - the app's production build on embedded PGlite (./data), behind
// - a local stand-in for Shopify on :3000: it adds a fresh session token to every admin request (what App Bridge
//   does inside Shopify's admin) and signs /apps/workspace/* storefront requests the way Shopify's app proxy does.
// The app itself is not told about the emulator: a merchant enters its URLs on the Settings page, as for the real service.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import http from "node:http";
import { openDatabase } from "../app/db/connect.server";
import { parseEnv } from "../app/env.server";
// The same stand-ins for Shopify the tests use: session tokens, app proxy signatures, a storefront's Liquid.
import { mintSessionToken, seedOfflineSession, sendWebhook, signProxyQuery, webhookHmac } from "../test/helpers/shopify";
import { layout, renderLiquid } from "../dev/storefront/proxy";

const SHOP = process.env.DEMO_SHOP ?? "demo-shop.myshopify.com";
const PUBLIC_PORT = Number(process.env.PORT ?? 3000);
const APP_PORT = PUBLIC_PORT + 1;
const EMULATOR_PORT = Number(process.env.EMULATOR_PORT ?? 8787);
const DEMO_CUSTOMER = process.env.DEMO_CUSTOMER_ID ?? "1001";
const DEMO_CUSTOMER_PROFILE = { name: "Demo Customer", email: "customer@example.com" };

const children: ChildProcess[] = [];
const stopAll = () => children.forEach((child) => child.kill("SIGTERM"));
process.on("SIGINT", () => (stopAll(), process.exit(130)));
process.on("SIGTERM", () => (stopAll(), process.exit(0)));

function start(command: string, args: string[], env: Record<string, string>, readyLine: RegExp, name: string) {
  return new Promise<void>((resolve, reject) => {
    const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "inherit"] });
    children.push(child);
    child.stdout!.on("data", (chunk: Buffer) => {
      const text = chunk.toString();
      process.stdout.write(text.replace(/^(?=.)/gm, `[${name}] `));
      if (readyLine.test(text)) resolve();
    });
    child.on("exit", (code) => reject(new Error(`${name} exited with code ${code}`)));
  });
}

async function main() {
  const config = parseEnv({ ...process.env, DATABASE_URL: undefined });
  if (!existsSync("build/server-main.js") || process.env.DEMO_REBUILD !== "false") {
    console.log("Building the app…");
    const build = spawnSync("npm", ["run", "build"], { stdio: "inherit" });
    if (build.status !== 0) process.exit(build.status ?? 1);
  }

  // The offline session Shopify's install would have stored, so the admin opens without an OAuth round trip.
  // Stored through the app's session storage, encrypted as in production.
  const db = openDatabase({ dataDir: config.PGLITE_DATA_DIR });
  await seedOfflineSession(db.prisma, SHOP, { accessToken: "demo-offline-token", scope: config.SCOPES });
  await db.close();

  await start("node_modules/.bin/tsx", ["emulator/main.ts", "--port", String(EMULATOR_PORT)], {}, /listening on/, "emulator");
  // What `npm start` runs: the compiled server, on plain node.
  await start(
    process.execPath,
    ["build/server-main.js"],
    {
      PORT: String(APP_PORT),
      HOST: "127.0.0.1",
      NODE_ENV: "production",
      SHOPIFY_APP_URL: `http://localhost:${PUBLIC_PORT}`,
      // A production start takes no built-in defaults (app/env.server.ts): the demo hands over its local values.
      SHOPIFY_API_KEY: config.SHOPIFY_API_KEY,
      SHOPIFY_API_SECRET: config.SHOPIFY_API_SECRET,
      ENCRYPTION_KEYS: config.ENCRYPTION_KEYS,
      // The emulator runs on this machine: the merchant's service URLs may point at loopback (docs/security.md).
      ALLOW_LOOPBACK_SERVICE_URLS: "true",
    },
    /listening on/,
    "app",
  );

  http
    .createServer(async (req, res) => {
      const url = new URL(req.url ?? "/", `http://localhost:${PUBLIC_PORT}`);
      const headers: Record<string, string | string[] | undefined> = { ...req.headers, host: `localhost:${APP_PORT}` };
      if (url.pathname === "/") {
        res.writeHead(302, { location: "/app" }).end();
        return;
      }
      if (url.pathname === "/_demo/order") {
        // What Shopify would send when the demo customer places an order: a signed orders/create webhook.
        const order = sampleOrder(url.searchParams.get("as_customer") ?? DEMO_CUSTOMER);
        await sendWebhook(`http://127.0.0.1:${APP_PORT}`, "orders/create", order, {
          shop: SHOP,
          hmac: webhookHmac(JSON.stringify(order), config.SHOPIFY_API_SECRET),
        });
        res.writeHead(302, { location: "/app" }).end();
        return;
      }
      if (url.pathname.startsWith("/apps/workspace")) {
        url.pathname = url.pathname.replace(/^\/apps\/workspace/, "/proxy");
        const customer = url.searchParams.get("as_customer") ?? DEMO_CUSTOMER;
        url.searchParams.delete("as_customer");
        signProxy(url, config.SHOPIFY_API_SECRET, customer);
      } else {
        const token = await mintSessionToken(SHOP, { apiKey: config.SHOPIFY_API_KEY, secret: config.SHOPIFY_API_SECRET, lifetimeSeconds: 60 });
        headers.authorization = `Bearer ${token}`;
      }
      const upstream = http.request(
        { host: "127.0.0.1", port: APP_PORT, method: req.method, path: url.pathname + url.search, headers },
        (response) => {
          // The app sends shoppers back to the store's own domain (https://<shop>/apps/workspace/…): here, that is us.
          const location = response.headers.location;
          if (location?.startsWith(`https://${SHOP}/`)) {
            response.headers.location = location.replace(`https://${SHOP}/`, `http://localhost:${PUBLIC_PORT}/`);
          }
          if (!String(response.headers["content-type"]).includes("application/liquid")) {
            res.writeHead(response.statusCode ?? 502, response.headers);
            response.pipe(res);
            return;
          }
          // Shopify renders the app's Liquid inside the theme; the stand-in does just enough of that.
          const chunks: Buffer[] = [];
          response.on("data", (chunk: Buffer) => chunks.push(chunk));
          response.on("end", () => {
            const page = layout(SHOP, renderLiquid(Buffer.concat(chunks).toString("utf8"), DEMO_CUSTOMER_PROFILE));
            res.writeHead(response.statusCode ?? 200, { "content-type": "text/html; charset=utf-8" }).end(page);
          });
        },
      );
      upstream.on("error", () => res.writeHead(502).end("The app is not answering."));
      req.pipe(upstream);
    })
    // Loopback only: this stand-in mints admin sessions and signs proxy requests for whoever calls it.
    .listen(PUBLIC_PORT, "127.0.0.1", () => {
      console.log(`
Ready.
  Admin (as ${SHOP}):            http://localhost:${PUBLIC_PORT}/app  (this machine only)
  Storefront connect page:        http://localhost:${PUBLIC_PORT}/apps/workspace/connect  (as customer ${DEMO_CUSTOMER}; add ?as_customer=ID)
  Place an order (as a webhook):  http://localhost:${PUBLIC_PORT}/_demo/order  (then see it on Sync status)
  Service emulator:               http://127.0.0.1:${EMULATOR_PORT}  (/_emulator/state lists what it received)
Paste the emulator's credentials printed above into Settings. Ctrl-C stops everything.`);
    });
}

let orderNumber = 0;
function sampleOrder(customerId: string) {
  const id = Date.now() * 100 + (orderNumber++ % 100);
  const now = new Date().toISOString();
  return {
    id,
    name: `#D${orderNumber}`,
    created_at: now,
    updated_at: now,
    currency: "EUR",
    customer: { id: Number(customerId) },
    line_items: [
      { id: id + 1, title: "Blue mug", name: "Blue mug", quantity: 2, current_quantity: 2, sku: "MUG-BLUE", product_id: 632910392, price: "12.50" },
    ],
  };
}

function signProxy(url: URL, secret: string, customerId: string) {
  const params = Object.fromEntries(url.searchParams.entries());
  delete params.signature;
  url.search = signProxyQuery(
    { ...params, shop: SHOP, logged_in_customer_id: customerId, path_prefix: "/apps/workspace", timestamp: String(Math.floor(Date.now() / 1000)) },
    secret,
  ).toString();
}

main().catch((error) => {
  console.error(error);
  stopAll();
  process.exit(1);
});
