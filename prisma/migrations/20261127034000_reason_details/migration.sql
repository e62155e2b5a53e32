-- AlterTable
ALTER TABLE "SyncRecord" ADD COLUMN     "reasonDetails" JSONB;

-- AlterTable
ALTER TABLE "SyncAttempt" ADD COLUMN     "details" JSONB;

-- AlterTable
ALTER TABLE "Backfill" ADD COLUMN     "errorDetails" JSONB;

