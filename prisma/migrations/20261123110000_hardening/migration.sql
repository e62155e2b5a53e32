-- AlterTable
ALTER TABLE "CustomerGrant" ADD COLUMN     "boundOrigins" TEXT;

-- CreateTable
CREATE TABLE "WebhookReceipt" (
    "key" TEXT NOT NULL,
    "shop" TEXT NOT NULL,
    "topic" TEXT NOT NULL,
    "receivedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "WebhookReceipt_pkey" PRIMARY KEY ("key")
);

-- CreateIndex
CREATE INDEX "WebhookReceipt_shop_receivedAt_idx" ON "WebhookReceipt"("shop", "receivedAt");

