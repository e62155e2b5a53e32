import { describe, expect, it } from "vitest";
import { parseEnv } from "~/env.server";

const key = Buffer.alloc(32, 7).toString("base64");

describe("configuration", () => {
  it("needs nothing for the embedded default", () => {
    const config = parseEnv({ NODE_ENV: "test" });
    expect(config.DATABASE_URL).toBeUndefined();
    expect(config.SHOPIFY_APP_URL).toBe("http://localhost:3000");
    expect(config.ENCRYPTION_KEYS).toMatch(/^test:/);
  });

  it("names every missing variable of a PostgreSQL deployment", () => {
    expect(() => parseEnv({ DATABASE_URL: "postgresql://db/app" })).toThrowError(
      /SHOPIFY_API_KEY: is required[\s\S]*SHOPIFY_API_SECRET: is required[\s\S]*SHOPIFY_APP_URL: is required[\s\S]*ENCRYPTION_KEYS: is required/,
    );
  });

  it("explains an invalid value", () => {
    const base = { DATABASE_URL: "postgresql://db/app", SHOPIFY_API_KEY: "k", SHOPIFY_API_SECRET: "s" };
    expect(() => parseEnv({ ...base, SHOPIFY_APP_URL: "not a url", ENCRYPTION_KEYS: `k1:${key}` })).toThrowError(
      /SHOPIFY_APP_URL: must be the app's public https URL/,
    );
    expect(() =>
      parseEnv({ ...base, SHOPIFY_APP_URL: "https://app.example", ENCRYPTION_KEYS: "k1:c2hvcnQ=" }),
    ).toThrowError(/ENCRYPTION_KEYS: every key must be 32 bytes/);
    expect(() => parseEnv({ DATABASE_URL: "mysql://db/app" })).toThrowError(
      /DATABASE_URL: must be a postgresql:\/\/ URL/,
    );
  });

  it("refuses a plain-http app URL in production, except on a loopback address", () => {
    const base = {
      NODE_ENV: "production",
      SHOPIFY_API_KEY: "k",
      SHOPIFY_API_SECRET: "s",
      ENCRYPTION_KEYS: `k1:${key}`,
    };
    for (const url of ["http://app.example", "http://10.0.0.5:3000", "ftp://app.example"]) {
      expect(() => parseEnv({ ...base, SHOPIFY_APP_URL: url }), url).toThrowError(
        /SHOPIFY_APP_URL: must be an https:\/\/ URL in production/,
      );
    }
    for (const url of ["https://app.example", "http://127.0.0.1:3000", "http://localhost:3000"]) {
      expect(parseEnv({ ...base, SHOPIFY_APP_URL: url }).SHOPIFY_APP_URL, url).toBe(url);
    }
  });

  it("accepts a complete deployment", () => {
    const config = parseEnv({
      DATABASE_URL: "postgresql://db/app",
      SHOPIFY_API_KEY: "k",
      SHOPIFY_API_SECRET: "s",
      SHOPIFY_APP_URL: "https://app.example",
      ENCRYPTION_KEYS: `k2:${key},k1:${key}`,
    });
    expect(config.ENCRYPTION_KEYS.split(",")).toHaveLength(2);
  });
});

describe("worker configuration", () => {
  it("defaults, and refuses a value that is not a positive whole number", () => {
    expect(parseEnv({ NODE_ENV: "test" })).toMatchObject({
      WORKER_CONCURRENCY: 4,
      WORKER_POLL_MS: 1000,
      WORKER_POOL_SIZE: 5,
    });
    expect(parseEnv({ NODE_ENV: "test", WORKER_CONCURRENCY: "8" }).WORKER_CONCURRENCY).toBe(8);
    expect(() => parseEnv({ NODE_ENV: "test", WORKER_CONCURRENCY: "lots" })).toThrowError(/WORKER_CONCURRENCY:/);
    expect(() => parseEnv({ NODE_ENV: "test", WORKER_LEASE_MS: "0" })).toThrowError(/WORKER_LEASE_MS:/);
  });
});

describe("production", () => {
  it("refuses to start on the built-in development secrets, naming each missing one", () => {
    const attempt = () => parseEnv({ NODE_ENV: "production" });
    expect(attempt).toThrowError(/SHOPIFY_API_KEY: is required with NODE_ENV=production/);
    expect(attempt).toThrowError(/SHOPIFY_API_SECRET: is required with NODE_ENV=production/);
    expect(attempt).toThrowError(/ENCRYPTION_KEYS: is required with NODE_ENV=production/);
    expect(() =>
      parseEnv({ NODE_ENV: "production", SHOPIFY_API_KEY: "k", SHOPIFY_APP_URL: "https://app.example" }),
    ).toThrowError(
      /^(?![\s\S]*SHOPIFY_API_KEY)[\s\S]*SHOPIFY_API_SECRET: is required[\s\S]*ENCRYPTION_KEYS: is required/,
    );
  });

  it("starts with its own secrets, on the embedded database too", () => {
    const config = parseEnv({
      NODE_ENV: "production",
      SHOPIFY_API_KEY: "k",
      SHOPIFY_API_SECRET: "s",
      SHOPIFY_APP_URL: "https://app.example",
      ENCRYPTION_KEYS: `k1:${key}`,
    });
    expect(config.SHOPIFY_API_SECRET).toBe("s");
    expect(config.ALLOW_LOOPBACK_SERVICE_URLS).toBe("false");
  });
});
