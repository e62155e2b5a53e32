-- CreateEnum
CREATE TYPE "SyncReasonCode" AS ENUM ('settings_missing', 'needs_reconnect', 'reconnect_required', 'order_pending', 'order_moved', 'order_not_found', 'not_connected', 'no_customer', 'order_not_imported', 'no_lines', 'cancelled', 'missing_id', 'missing_date', 'too_many_lines', 'invalid_data', 'rejected', 'retrying', 'attempts_exhausted', 'lease_expired');

-- AlterTable
ALTER TABLE "SyncRecord" ADD COLUMN     "reasonCode" "SyncReasonCode";

-- CreateIndex
CREATE INDEX "SyncRecord_shop_reasonCode_idx" ON "SyncRecord"("shop", "reasonCode");


-- Records written before the code existed, for the reasons the code looks records up by (their words then).
UPDATE "SyncRecord" SET "reasonCode" = 'settings_missing'
  WHERE "reason" = 'The Merchant Integration Service is not set up for this shop yet (Settings).';
UPDATE "SyncRecord" SET "reasonCode" = 'order_not_imported' WHERE "reason" LIKE 'Its order was not imported:%';
UPDATE "SyncRecord" SET "reasonCode" = 'not_connected' WHERE "reason" LIKE 'Customer has not connected a workspace.%';
UPDATE "SyncRecord" SET "reasonCode" = 'needs_reconnect' WHERE "reason" LIKE 'The customer''s workspace connection must be reconnected%';
