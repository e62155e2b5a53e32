-- The lease takes shops with queued work from "JobShop" in turn order instead of grouping the whole queue, and
-- walks each shop's queued jobs through partial indexes: the work of one lease no longer grows with the backlog.

-- CreateTable
CREATE TABLE "JobShop" (
    "shop" TEXT NOT NULL,
    "turn" BIGINT NOT NULL DEFAULT 0,
    "dueAt" TIMESTAMP(3) NOT NULL,
    "version" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "JobShop_pkey" PRIMARY KEY ("shop")
);

-- CreateIndex
CREATE INDEX "JobShop_turn_dueAt_shop_idx" ON "JobShop"("turn", "dueAt", "shop");

-- Hand-written from here (Prisma's schema has no partial indexes, sequences of their own or triggers).

-- A served shop moves to the back: its turn becomes the next value of this sequence (new shops start at 0).
CREATE SEQUENCE "JobShop_turn_seq";

-- One shop's queued jobs in seq order (the lease's candidates) and by run time (when the shop is next due).
CREATE INDEX "Job_queued_shop_seq_idx" ON "Job"("shop", "seq") WHERE "status" = 'queued';
CREATE INDEX "Job_queued_shop_runAt_idx" ON "Job"("shop", "runAt") WHERE "status" = 'queued';
-- "Is an earlier job of this order queued or running?" without reading the order's finished history.
CREATE INDEX "Job_active_order_idx" ON "Job"("shop", "orderKey", "seq") WHERE "status" IN ('queued', 'running');

-- Every statement that leaves jobs queued (intake, enqueue, reschedule, requeue, wake-up, reclaimed lease) notes
-- their shops: the row is created at turn 0 or its dueAt brought forward, and its version changes. The upsert
-- locks the row, so the lease's version check (see leaseJobs) never removes a shop whose new job it could not see.
CREATE FUNCTION "job_shop_note"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "JobShop" ("shop", "dueAt")
    SELECT "shop", min("runAt") FROM "changed" WHERE "status" = 'queued' GROUP BY "shop" ORDER BY "shop"
  ON CONFLICT ("shop") DO UPDATE SET "dueAt" = LEAST("JobShop"."dueAt", EXCLUDED."dueAt"), "version" = "JobShop"."version" + 1;
  RETURN NULL;
END
$$;

CREATE TRIGGER "Job_queued_on_insert" AFTER INSERT ON "Job" REFERENCING NEW TABLE AS "changed"
  FOR EACH STATEMENT EXECUTE FUNCTION "job_shop_note"();
CREATE TRIGGER "Job_queued_on_update" AFTER UPDATE ON "Job" REFERENCING NEW TABLE AS "changed"
  FOR EACH STATEMENT EXECUTE FUNCTION "job_shop_note"();

-- The shops of jobs queued before this migration.
INSERT INTO "JobShop" ("shop", "dueAt")
  SELECT "shop", min("runAt") FROM "Job" WHERE "status" = 'queued' GROUP BY "shop";
