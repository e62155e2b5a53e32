// The process's one database: PostgreSQL when DATABASE_URL is set, embedded PGlite in ./data otherwise. Each
// process opens it once where it starts (app/runtime/web.server.ts, server/worker.ts, scripts) and hands it in
// with setDatabase; Shopify's session storage and the routes read it here.
import type { PrismaClient } from "@prisma/client";
import { openDatabase, type Database } from "./db/connect.server";

declare global {
  // Development only (remix vite:dev): a module reloaded by HMR must find the open database, not open the PGlite
  // directory a second time (PGlite allows one opener per directory).
  var __devDatabase: Database | undefined;
}

let current: Database | undefined;

/** Makes `db` the process's database; returns the one it replaces (tests put it back). */
export function setDatabase(db: Database | undefined): Database | undefined {
  const previous = current;
  current = db;
  return previous;
}

export function database(): Database {
  if (current) return current;
  if (process.env.NODE_ENV === "development") return (globalThis.__devDatabase ??= openDatabase());
  throw new Error("No database yet: the process opens it at its start (app/runtime/web.server.ts, server/worker.ts)");
}

// A proxy so `import prisma from "~/db.server"` works like the template while the database is handed in at start.
const prisma = new Proxy({} as PrismaClient, {
  get(_target, property) {
    const client = database().prisma;
    const value = Reflect.get(client, property);
    return typeof value === "function" ? value.bind(client) : value;
  },
});

export default prisma;
