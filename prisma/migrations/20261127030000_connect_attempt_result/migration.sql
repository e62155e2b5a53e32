-- How a Connect workspace attempt ended, for the account pages to ask (issue 38): they are not given their own
-- address, so the result is no longer carried back in it.

-- AlterTable
ALTER TABLE "OAuthState" ADD COLUMN     "finishedAt" TIMESTAMP(3),
ADD COLUMN     "result" TEXT;

