-- AlterTable
ALTER TABLE "OAuthState" ADD COLUMN     "exchangedAt" TIMESTAMP(3),
ADD COLUMN     "pendingTokensEnc" TEXT,
ADD COLUMN     "proofHash" TEXT;

