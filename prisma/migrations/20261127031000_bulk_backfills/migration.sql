-- AlterTable
ALTER TABLE "Backfill" ADD COLUMN     "bulkRunId" TEXT,
ADD COLUMN     "path" TEXT NOT NULL DEFAULT 'paged',
ADD COLUMN     "since" TIMESTAMP(3);

-- CreateTable
CREATE TABLE "BulkRun" (
    "id" TEXT NOT NULL,
    "shop" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'waiting',
    "since" TIMESTAMP(3),
    "operationId" TEXT,
    "shopifyStatus" TEXT,
    "errorCode" TEXT,
    "objectCount" INTEGER NOT NULL DEFAULT 0,
    "ordersRead" INTEGER NOT NULL DEFAULT 0,
    "ordersFound" INTEGER NOT NULL DEFAULT 0,
    "attempt" INTEGER NOT NULL DEFAULT 1,
    "error" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finishedAt" TIMESTAMP(3),

    CONSTRAINT "BulkRun_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "BulkRun_shop_status_idx" ON "BulkRun"("shop", "status");

-- CreateIndex
CREATE INDEX "BulkRun_operationId_idx" ON "BulkRun"("operationId");

-- CreateIndex
CREATE INDEX "Backfill_shop_status_path_idx" ON "Backfill"("shop", "status", "path");

-- CreateIndex
CREATE INDEX "Backfill_bulkRunId_idx" ON "Backfill"("bulkRunId");

