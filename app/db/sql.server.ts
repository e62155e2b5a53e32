// Small pieces for the few hot statements written in SQL rather than through Prisma's query builder.
import { Prisma } from "@prisma/client";

// Timestamps are TIMESTAMP(3) without zone holding UTC (as Prisma writes them): pass them as UTC literals, never
// the database's CURRENT_TIMESTAMP (that one follows the session's time zone).
export const ts = (date: Date) => Prisma.sql`${date.toISOString().replace("Z", "")}::timestamp(3)`;
