// The floor the intake is measured against: a bare node:http handler that verifies the same HMAC and inserts one
// row into the same database, nothing else. Prints `listening on <port>`.
import { createHmac, randomUUID, timingSafeEqual } from "node:crypto";
import { createServer } from "node:http";
import pg from "pg";

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.POOL ?? 16) });
const secret = process.env.SHOPIFY_API_SECRET ?? "";
await pool.query(
  `CREATE TABLE IF NOT EXISTS floor_delivery (id text PRIMARY KEY, shop text, "eventId" text, payload jsonb, UNIQUE (shop, "eventId"))`,
);

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    const body = Buffer.concat(chunks);
    const given = Buffer.from(String(req.headers["x-shopify-hmac-sha256"] ?? ""), "base64");
    const expected = createHmac("sha256", secret).update(body).digest();
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return void res.writeHead(401).end();
    pool
      .query(
        `INSERT INTO floor_delivery (id, shop, "eventId", payload) VALUES ($1, $2, $3, $4::jsonb) ON CONFLICT DO NOTHING`,
        [randomUUID(), req.headers["x-shopify-shop-domain"], req.headers["x-shopify-event-id"], body.toString("utf8")],
      )
      .then(() => res.writeHead(200).end())
      .catch(() => res.writeHead(503).end());
  });
});
server.listen(Number(process.env.PORT), "127.0.0.1", () => console.log(`listening on ${process.env.PORT}`));
process.once("SIGTERM", () => server.close(() => void pool.end().then(() => process.exit(0))));
