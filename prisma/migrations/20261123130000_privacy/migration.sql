-- AlterTable
ALTER TABLE "ShopSettings" ADD COLUMN     "retentionDays" INTEGER NOT NULL DEFAULT 90,
ADD COLUMN     "uninstalledAt" TIMESTAMP(3);

-- CreateTable
CREATE TABLE "DataRequest" (
    "id" TEXT NOT NULL,
    "shop" TEXT NOT NULL,
    "customerId" TEXT NOT NULL,
    "requestId" TEXT NOT NULL,
    "ordersRequested" JSONB NOT NULL,
    "export" JSONB NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "handledAt" TIMESTAMP(3),

    CONSTRAINT "DataRequest_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "TokenRevocation" (
    "id" TEXT NOT NULL,
    "sealed" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "runAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastError" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "TokenRevocation_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "DataRequest_shop_handledAt_idx" ON "DataRequest"("shop", "handledAt");

-- CreateIndex
CREATE UNIQUE INDEX "DataRequest_shop_requestId_key" ON "DataRequest"("shop", "requestId");

-- CreateIndex
CREATE INDEX "TokenRevocation_runAt_idx" ON "TokenRevocation"("runAt");

