-- shop/redact keeps the shop's webhook receipts (ids only) until this time, then housekeeping deletes them; null =
-- a receipt of an installed shop, kept as before.
ALTER TABLE "WebhookReceipt" ADD COLUMN "expiresAt" TIMESTAMP(3);
CREATE INDEX "WebhookReceipt_expiresAt_idx" ON "WebhookReceipt"("expiresAt");

-- Bumped by customers/redact on every record it erases a customer from: a job that read the record before writes
-- it back only while the number is unchanged (the fence is in the same UPDATE's WHERE clause).
ALTER TABLE "SyncRecord" ADD COLUMN "redactions" INTEGER NOT NULL DEFAULT 0;

-- Housekeeping deletes expired connection states by expiry.
CREATE INDEX "OAuthState_expiresAt_idx" ON "OAuthState"("expiresAt");
