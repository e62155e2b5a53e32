// The attempts log: one row per send of a record to the service, written where the worker gets the outcome. The
// merchant's detail page lists them. Only the kind, status, error code and our own plain-words message are kept:
// never a token, a body or the service's raw answer.
import { randomUUID } from "node:crypto";
import { Prisma, type PrismaClient } from "@prisma/client";
import { ts } from "../db/sql.server";
import type { ImportOutcome } from "../service/client.server";

const MESSAGE_MAX = 500;

/**
 * The row for one send, as an INSERT into "SyncAttempt" (SQL, docs/decisions/0002): run alone after a failure, or
 * inside the statement that records a success (recordImported).
 */
export function attemptInsert(
  job: { id: string; shop: string },
  recordId: string,
  outcome: ImportOutcome,
  at: Date,
): Prisma.Sql {
  const message = outcome.ok
    ? outcome.replayed
      ? "Already at the service (answered from its idempotency store)."
      : null
    : outcome.message.slice(0, MESSAGE_MAX);
  const errorCode = outcome.ok ? null : (outcome.errorCode?.slice(0, 100) ?? null);
  // What the admin words in its language (the page never shows `message`, English for logs): a replayed answer,
  // and the service's own message quoted as its words.
  const details = outcome.ok
    ? outcome.replayed
      ? { replayed: true }
      : null
    : outcome.serviceMessage
      ? { serviceMessage: outcome.serviceMessage.slice(0, MESSAGE_MAX) }
      : null;
  return Prisma.sql`
    INSERT INTO "SyncAttempt" (id, shop, "recordId", "jobId", at, ok, outcome, "httpStatus", "errorCode", message, details)
    VALUES (${randomUUID()}, ${job.shop}, ${recordId}, ${job.id}, ${ts(at)}, ${outcome.ok}, ${outcome.ok ? "success" : outcome.kind},
      ${outcome.status ?? null}::int, ${errorCode}::text, ${message}::text, ${details === null ? null : JSON.stringify(details)}::jsonb)`;
}

export async function recordAttempt(
  prisma: PrismaClient,
  job: { id: string; shop: string },
  recordId: string,
  outcome: ImportOutcome,
  at: Date,
): Promise<void> {
  await prisma.$executeRaw(attemptInsert(job, recordId, outcome, at));
}
