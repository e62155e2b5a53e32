// Small pieces for the few hot statements written in SQL rather than through Prisma's query builder.
import { Prisma, type PrismaClient } from "@prisma/client";

/** The client or an open transaction: functions that take one work inside a caller's transaction too. */
export type Db = PrismaClient | Prisma.TransactionClient;

// Timestamps are TIMESTAMP(3) without zone holding UTC (as Prisma writes them): pass them as UTC literals, never
// the database's CURRENT_TIMESTAMP (that one follows the session's time zone).
export const ts = (date: Date) => Prisma.sql`${date.toISOString().replace("Z", "")}::timestamp(3)`;

/**
 * The database driver itself (`pg`'s pool or PGlite), for the statements where Prisma's own cost showed in the
 * profile: the webhook intake and each import job's statements (docs/decisions/0002). Bound parameters only; with
 * `name`, PostgreSQL parses and plans the statement once per connection (PGlite ignores the name).
 */
export interface SqlClient {
  query<T>(text: string, params: unknown[], name?: string): Promise<T[]>;
}

// The driver beside each client openDatabase made (app/db/connect.server.ts): one pool or PGlite for both.
const drivers = new WeakMap<object, SqlClient>();

/** Records that `prisma`'s database is also reachable through `sql` (openDatabase, for every client it opens). */
export function registerDriver(prisma: PrismaClient, sql: SqlClient): void {
  drivers.set(prisma, sql);
}

/**
 * A hot statement, written with Prisma.sql: through the driver when `db` is a client openDatabase made (Prisma's
 * raw-query path cost a worker more CPU than the statement did), through Prisma otherwise, which is always the case
 * for a transaction's client, so a statement inside a transaction stays on its connection. Results must not depend
 * on the path: no column of type `timestamp` without zone (the driver would read it in the process's time zone;
 * select it `AT TIME ZONE 'UTC'`) and no `bigint` (a string through `pg`, a BigInt through Prisma).
 */
export function rawQuery<T>(db: Db, statement: Prisma.Sql): Promise<T[]> {
  const driver = drivers.get(db);
  return driver ? driver.query<T>(statement.text, statement.values) : db.$queryRaw<T[]>(statement);
}
