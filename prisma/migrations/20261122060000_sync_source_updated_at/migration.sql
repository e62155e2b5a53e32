-- AlterTable
ALTER TABLE "SyncRecord" ADD COLUMN     "sourceUpdatedAt" TIMESTAMP(3);

