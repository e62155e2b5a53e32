// A throwaway PostgreSQL database beside an admin URL's (tests and the bench): created empty, dropped with FORCE.
import { randomBytes } from "node:crypto";
import pg from "pg";

export interface ThrowawayPostgres {
  url: string;
  drop(): Promise<void>;
}

async function run(adminUrl: string, sql: string) {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(sql);
  } finally {
    await admin.end();
  }
}

export async function throwawayPostgres(adminUrl: string, prefix: string): Promise<ThrowawayPostgres> {
  const name = `${prefix}_${Date.now().toString(36)}_${randomBytes(4).toString("hex")}`;
  await run(adminUrl, `CREATE DATABASE "${name}"`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => run(adminUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`) };
}
