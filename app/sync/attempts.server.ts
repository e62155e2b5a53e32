// The attempts log: one row per send of a record to the service, written where the worker gets the outcome. The
// merchant's detail page lists them. Only the kind, status, error code and our own plain-words message are kept:
// never a token, a body or the service's raw answer.
import { randomUUID } from "node:crypto";
import type { PrismaClient } from "@prisma/client";
import { ts } from "../db/sql.server";
import type { ImportOutcome } from "../service/imports.server";

const MESSAGE_MAX = 500;

export async function recordAttempt(
  prisma: PrismaClient,
  job: { id: string; shop: string },
  recordId: string,
  outcome: ImportOutcome,
  at: Date,
): Promise<void> {
  const message = outcome.ok
    ? outcome.replayed
      ? "Already at the service (answered from its idempotency store)."
      : null
    : outcome.message.slice(0, MESSAGE_MAX);
  // Once per send: SQL, like the worker's other per-job statements (docs/decisions/0002).
  await prisma.$executeRaw`
    INSERT INTO "SyncAttempt" (id, shop, "recordId", "jobId", at, ok, outcome, "httpStatus", "errorCode", message)
    VALUES (${randomUUID()}, ${job.shop}, ${recordId}, ${job.id}, ${ts(at)}, ${outcome.ok}, ${outcome.ok ? "success" : outcome.kind},
      ${outcome.status ?? null}::int, ${outcome.ok ? null : (outcome.errorCode?.slice(0, 100) ?? null)}::text, ${message}::text)`;
}
