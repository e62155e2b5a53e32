-- Points each process holds for Admin API queries in flight, apart from the level (app/sync/shared-rate.server.ts).

-- AlterTable
ALTER TABLE "ServiceRateBudget" ADD COLUMN "held" JSONB NOT NULL DEFAULT '{}';
