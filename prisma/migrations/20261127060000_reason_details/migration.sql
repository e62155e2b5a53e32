-- The facts the admin words in the merchant's language (docs/decisions/0012-admin-language.md). IF NOT EXISTS: a
-- database that ran this migration's first version (20261127034000_reason_details, reverted) has three of them.

-- AlterTable
ALTER TABLE "SyncRecord" ADD COLUMN IF NOT EXISTS "reasonDetails" JSONB;

-- AlterTable
ALTER TABLE "SyncAttempt" ADD COLUMN IF NOT EXISTS "details" JSONB;

-- AlterTable
ALTER TABLE "Backfill" ADD COLUMN IF NOT EXISTS "errorDetails" JSONB;

-- AlterTable
ALTER TABLE "ShopSettings" ADD COLUMN IF NOT EXISTS "lastCheckDetails" JSONB;
