-- The service origins that issued a connection's pending tokens: they are only ever sent back there.
ALTER TABLE "OAuthState" ADD COLUMN "boundOrigins" TEXT;
