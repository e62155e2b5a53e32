// The app's one Prisma client: PostgreSQL when DATABASE_URL is set, embedded PGlite in ./data otherwise.
// Kept on globalThis so dev-server reloads and in-process tests share one connection.
import type { PrismaClient } from "@prisma/client";
import { openDatabase, type Database } from "./db/connect.server";
import { env } from "./env.server";

declare global {
  var __appDatabase: Database | undefined;
}

export function database(): Database {
  if (!globalThis.__appDatabase) {
    const config = env();
    globalThis.__appDatabase = openDatabase(
      config.DATABASE_URL ? { url: config.DATABASE_URL } : { dataDir: config.PGLITE_DATA_DIR },
    );
  }
  return globalThis.__appDatabase;
}

// A proxy so `import prisma from "~/db.server"` works like the template while the database opens lazily.
const prisma = new Proxy({} as PrismaClient, {
  get(_target, property) {
    const client = database().prisma;
    const value = Reflect.get(client, property);
    return typeof value === "function" ? value.bind(client) : value;
  },
});

export default prisma;
