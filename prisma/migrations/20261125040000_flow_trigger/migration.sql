-- AlterTable
ALTER TABLE "ShopSettings" ADD COLUMN     "flowTriggerEnabled" BOOLEAN NOT NULL DEFAULT true;

-- AlterTable
ALTER TABLE "SyncRecord" ADD COLUMN     "flowNotifiedAt" TIMESTAMP(3);

