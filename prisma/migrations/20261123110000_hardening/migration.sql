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


-- Existing grants were issued by the service the settings name today: bind them to those origins (the format of
-- app/service/origins.server.ts, "auth=<origin> base=<origin> sandbox=<origin>"; an origin is the lower-cased
-- scheme://host[:port] without a default port). A URL this cannot read binds to "", which matches nothing: that
-- grant is asked to reconnect rather than sent anywhere.
UPDATE "CustomerGrant" AS g
SET "boundOrigins" = 'auth=' || o.auth || ' base=' || o.base || ' sandbox=' || o.sandbox
FROM (
  SELECT s.shop,
    COALESCE(regexp_replace(regexp_replace(lower(substring(s."authUrl" FROM '^[A-Za-z][A-Za-z0-9+.-]*://[^/?#]*')), '^(https://.*):443$', '\1'), '^(http://.*):80$', '\1'), '') AS auth,
    COALESCE(regexp_replace(regexp_replace(lower(substring(s."baseUrl" FROM '^[A-Za-z][A-Za-z0-9+.-]*://[^/?#]*')), '^(https://.*):443$', '\1'), '^(http://.*):80$', '\1'), '') AS base,
    COALESCE(regexp_replace(regexp_replace(lower(substring(s."sandboxBaseUrl" FROM '^[A-Za-z][A-Za-z0-9+.-]*://[^/?#]*')), '^(https://.*):443$', '\1'), '^(http://.*):80$', '\1'), '') AS sandbox
  FROM "ShopSettings" AS s
) AS o
WHERE g.shop = o.shop AND g."boundOrigins" IS NULL;
