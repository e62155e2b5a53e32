// The one way a statement written in SQL reaches the database (docs/decisions/0002): `rawQuery`, for the webhook
// intake and every other hot statement alike. Functions take a `Db`: the process's client, or a transaction.
import type { PGlite } from "@electric-sql/pglite";
import { Prisma, type PrismaClient } from "@prisma/client";
import type pg from "pg";

/** The client or an open transaction: functions that take one work inside a caller's transaction too. */
export type Db = PrismaClient | Prisma.TransactionClient;

// Timestamps are TIMESTAMP(3) without zone holding UTC (as Prisma writes them): pass them as UTC literals, never
// the database's CURRENT_TIMESTAMP (that one follows the session's time zone).
export const ts = (date: Date) => Prisma.sql`${date.toISOString().replace("Z", "")}::timestamp(3)`;

/** The database's own driver (`pg`'s pool or PGlite) beside a client openDatabase made, waiting for its migrations. */
interface Driver {
  query<T>(text: string, params: unknown[], name?: string): Promise<T[]>;
}

const drivers = new WeakMap<object, Driver>();

/**
 * Makes `prisma`'s statements through rawQuery go to the driver underneath it (openDatabase, for every client it
 * opens: one pool or one PGlite serves both). With a name, PostgreSQL parses and plans a statement once per
 * connection; PGlite has no named statements and runs it as it comes.
 */
export function attachDriver(
  prisma: PrismaClient,
  via: { pool: pg.Pool } | { pglite: PGlite },
  ready: Promise<void>,
): void {
  const driver: Driver =
    "pool" in via
      ? {
          async query<T>(text: string, values: unknown[], name?: string) {
            await ready;
            return (await via.pool.query({ text, values, name })).rows as T[];
          },
        }
      : {
          async query<T>(text: string, params: unknown[]) {
            await ready;
            return (await via.pglite.query<T>(text, params)).rows;
          },
        };
  drivers.set(prisma, driver);
}

/** The driver rawQuery uses for `db` (tests and the bench watch it); undefined for a transaction or another client. */
export const driverOf = (db: Db): Driver | undefined => drivers.get(db);

/**
 * A statement written with Prisma.sql (every value a bound parameter): through the driver when `db` is a client
 * openDatabase made (Prisma's raw-query path cost the intake and a worker more CPU than the statement did),
 * through Prisma otherwise, which is always the case for a transaction's client, so a statement inside a
 * transaction stays on its connection. `name` prepares the statement once per connection (one name, one text).
 * Results must not depend on the path: no column of type `timestamp` without zone (the driver would read it in the
 * process's time zone; select it `AT TIME ZONE 'UTC'`) and no `bigint` (a string through `pg`, a BigInt through
 * Prisma).
 */
export function rawQuery<T>(db: Db, statement: Prisma.Sql, name?: string): Promise<T[]> {
  const driver = drivers.get(db);
  return driver ? driver.query<T>(statement.text, statement.values, name) : db.$queryRaw<T[]>(statement);
}
