-- Two indexes whose columns lead longer ones on the same table: every read they served, the longer index serves
-- (a btree is read by any prefix of its columns), and every intake batch paid for keeping them (issue 25: the
-- intake's database work per delivery was 2.7x the floor's, most of it index maintenance).
-- ("shop", "state") leads ("shop", "state", "createdAt", "id"); ("shop", "customerId") leads
-- ("shop", "customerId", "createdAt", "id").

-- DropIndex
DROP INDEX "SyncRecord_shop_state_idx";

-- DropIndex
DROP INDEX "SyncRecord_shop_customerId_idx";
