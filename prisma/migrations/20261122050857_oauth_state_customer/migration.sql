-- AlterTable
ALTER TABLE "OAuthState" ADD COLUMN     "customerEmail" TEXT,
ADD COLUMN     "customerName" TEXT;

