-- AlterTable
ALTER TABLE "ShopSettings" ADD COLUMN     "cartButtonEnabled" BOOLEAN NOT NULL DEFAULT true,
ADD COLUMN     "handoffExpirySeconds" INTEGER NOT NULL DEFAULT 1800;

-- AlterTable
ALTER TABLE "CartHandoff" ADD COLUMN     "reasonCode" TEXT;

