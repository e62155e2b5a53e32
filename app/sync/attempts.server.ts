// The attempts log: one row per send of a record to the service, written where the worker gets the outcome. The
// merchant's detail page lists them. Only the kind, status, error code and our own plain-words message are kept:
// never a token, a body or the service's raw answer.
import type { PrismaClient } from "@prisma/client";
import type { ImportOutcome } from "../service/imports.server";

const MESSAGE_MAX = 500;

export async function recordAttempt(
  prisma: PrismaClient,
  job: { id: string; shop: string },
  recordId: string,
  outcome: ImportOutcome,
  at: Date,
): Promise<void> {
  await prisma.syncAttempt.create({
    data: {
      shop: job.shop,
      recordId,
      jobId: job.id,
      at,
      ok: outcome.ok,
      outcome: outcome.ok ? "success" : outcome.kind,
      httpStatus: outcome.status ?? null,
      errorCode: outcome.ok ? null : (outcome.errorCode?.slice(0, 100) ?? null),
      message: outcome.ok ? (outcome.replayed ? "Already at the service (answered from its idempotency store)." : null) : outcome.message.slice(0, MESSAGE_MAX),
    },
  });
}
