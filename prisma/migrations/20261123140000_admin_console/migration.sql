-- AlterTable
ALTER TABLE "ShopSettings" ADD COLUMN     "lastCheckAt" TIMESTAMP(3),
ADD COLUMN     "lastCheckMessage" TEXT,
ADD COLUMN     "lastCheckOk" BOOLEAN;

-- AlterTable
ALTER TABLE "SyncRecord" ADD COLUMN     "orderName" TEXT,
ADD COLUMN     "resolvedAt" TIMESTAMP(3);

-- CreateTable
CREATE TABLE "SyncAttempt" (
    "id" TEXT NOT NULL,
    "shop" TEXT NOT NULL,
    "recordId" TEXT NOT NULL,
    "jobId" TEXT,
    "at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "ok" BOOLEAN NOT NULL,
    "outcome" TEXT NOT NULL,
    "httpStatus" INTEGER,
    "errorCode" TEXT,
    "message" TEXT,

    CONSTRAINT "SyncAttempt_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "WorkerHeartbeat" (
    "workerId" TEXT NOT NULL,
    "startedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "beatAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "WorkerHeartbeat_pkey" PRIMARY KEY ("workerId")
);

-- CreateIndex
CREATE INDEX "SyncAttempt_recordId_at_idx" ON "SyncAttempt"("recordId", "at");

-- CreateIndex
CREATE INDEX "SyncAttempt_shop_at_idx" ON "SyncAttempt"("shop", "at");

-- CreateIndex
CREATE INDEX "SyncRecord_shop_createdAt_id_idx" ON "SyncRecord"("shop", "createdAt", "id");

-- CreateIndex
CREATE INDEX "SyncRecord_shop_state_createdAt_id_idx" ON "SyncRecord"("shop", "state", "createdAt", "id");

-- CreateIndex
CREATE INDEX "SyncRecord_shop_customerId_createdAt_id_idx" ON "SyncRecord"("shop", "customerId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "SyncRecord_shop_orderName_idx" ON "SyncRecord"("shop", "orderName");

-- CreateIndex
CREATE INDEX "SyncRecord_shop_importedAt_idx" ON "SyncRecord"("shop", "importedAt");


-- Order names of records that came before the column, from the webhook each was delivered with (shipments: their order's).
UPDATE "SyncRecord" r SET "orderName" = left(d.payload->>'name', 64)
FROM "Job" j JOIN "WebhookDelivery" d ON d.id = j."deliveryId"
WHERE j."recordId" = r.id AND r.kind = 'order' AND r."orderName" IS NULL AND d.payload->>'name' IS NOT NULL;

UPDATE "SyncRecord" s SET "orderName" = o."orderName"
FROM "SyncRecord" o
WHERE s.kind = 'shipment' AND s."orderName" IS NULL AND o.shop = s.shop AND o.kind = 'order' AND o."externalId" = s."orderId"
  AND o."orderName" IS NOT NULL;
