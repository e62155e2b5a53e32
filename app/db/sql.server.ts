// Small pieces for the few hot statements written in SQL rather than through Prisma's query builder.
import { Prisma, type PrismaClient } from "@prisma/client";

/** The client or an open transaction: functions that take one work inside a caller's transaction too. */
export type Db = PrismaClient | Prisma.TransactionClient;

// Timestamps are TIMESTAMP(3) without zone holding UTC (as Prisma writes them): pass them as UTC literals, never
// the database's CURRENT_TIMESTAMP (that one follows the session's time zone).
export const ts = (date: Date) => Prisma.sql`${date.toISOString().replace("Z", "")}::timestamp(3)`;

/**
 * The database driver itself (`pg`'s pool or PGlite), for the one statement where Prisma's own cost showed in the
 * profile: the webhook intake (docs/decisions/0002). Bound parameters only; with `name`, PostgreSQL parses and
 * plans the statement once per connection (PGlite ignores the name).
 */
export interface SqlClient {
  query<T>(text: string, params: unknown[], name?: string): Promise<T[]>;
}
