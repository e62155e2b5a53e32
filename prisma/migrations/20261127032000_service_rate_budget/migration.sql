-- The service's rate budget shared by every process on PostgreSQL (app/sync/shared-rate.server.ts, issue 39).

-- CreateTable
CREATE TABLE "ServiceRateBudget" (
    "clientKey" TEXT NOT NULL,
    "capacity" DOUBLE PRECISION,
    "perSecond" DOUBLE PRECISION,
    "level" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "atMs" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "blockedUntilMs" DOUBLE PRECISION,

    CONSTRAINT "ServiceRateBudget_pkey" PRIMARY KEY ("clientKey")
);

-- CreateTable
CREATE TABLE "ServiceRateHolder" (
    "clientKey" TEXT NOT NULL,
    "holder" TEXT NOT NULL,
    "seenAtMs" DOUBLE PRECISION NOT NULL,

    CONSTRAINT "ServiceRateHolder_pkey" PRIMARY KEY ("clientKey","holder")
);

