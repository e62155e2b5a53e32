// Prisma's CLI would otherwise download a native schema engine, which a machine without network access cannot do.
// With the JS engine and a driver adapter, `prisma generate` and `prisma migrate diff` run with no download;
// a machine with a normal network runs the same commands. Migrations are applied by app/db/migrations.server.ts
// (docs/decisions/0003).
import { defineConfig } from "prisma/config";
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaPGlite } from "pglite-prisma-adapter";
import { PGlite } from "@electric-sql/pglite";

export default defineConfig({
  schema: "prisma/schema.prisma",
  experimental: { adapter: true },
  engine: "js",
  async adapter() {
    const url = process.env.DATABASE_URL;
    if (url) return new PrismaPg({ connectionString: url });
    return new PrismaPGlite(new PGlite()) as never;
  },
});
