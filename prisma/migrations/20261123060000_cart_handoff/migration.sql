-- CreateTable
CREATE TABLE "CartHandoff" (
    "id" TEXT NOT NULL,
    "shop" TEXT NOT NULL,
    "customerId" TEXT,
    "cartTokenHash" TEXT NOT NULL,
    "contentHash" TEXT NOT NULL,
    "externalCartId" TEXT NOT NULL,
    "idempotencyKey" TEXT NOT NULL,
    "lineCount" INTEGER NOT NULL,
    "totalMinor" BIGINT NOT NULL DEFAULT 0,
    "currency" TEXT NOT NULL DEFAULT '',
    "lines" JSONB NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'pending',
    "reason" TEXT,
    "handoffId" TEXT,
    "claimUrl" TEXT,
    "expiresAt" TIMESTAMP(3),
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "CartHandoff_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "CartHandoff_shop_createdAt_idx" ON "CartHandoff"("shop", "createdAt");

-- CreateIndex
CREATE INDEX "CartHandoff_shop_cartTokenHash_contentHash_idx" ON "CartHandoff"("shop", "cartTokenHash", "contentHash");

