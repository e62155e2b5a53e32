// One set-up for tests that need the real parts: a fresh test database (with Shopify offline sessions), the app's
// production build on it over HTTP, the service emulator, headless Chromium. withHarness registers the
// beforeAll/afterAll hooks in the calling file (or describe block) and returns accessors that are valid inside
// tests; everything that started is closed in reverse order, whatever failed to start.
import { afterAll, beforeAll } from "vitest";
import type { Keyring } from "~/crypto/secret-box.server";
import type { Browser } from "playwright-core";
import type { Logger } from "pino";
import type { RunningEmulator } from "../../emulator/server";
import { startApp, type RunningApp } from "./app";
import { launchBrowser } from "./browser";
import { createTestDatabase, type TestDatabase } from "./db";
import { startTestEmulator } from "./emulator";
import { startEmulatorFor } from "./emulator-oauth";
import { seedOfflineSession, TEST_SHOP } from "./shopify";

export interface HarnessOptions {
  /** Shops that get a stored offline session (what installing the app leaves). Default: the test shop. */
  shops?: string[];
  /** The keyring those sessions are encrypted with (the app's ENCRYPTION_KEYS when `app.env` sets its own). */
  keyring?: Keyring;
  /** Start the app's build on the database, with these extra environment variables. */
  app?: { env?: Record<string, string>; logger?: Logger };
  /** "oauth": the sandbox app with the app's /connect/callback registered; "sync": no rate limit in the way. */
  emulator?: "oauth" | "sync";
  browser?: boolean;
}

export interface Harness {
  readonly db: TestDatabase;
  readonly app: RunningApp;
  readonly emulator: RunningEmulator;
  readonly browser: Browser;
}

export function withHarness(options: HarnessOptions = {}): Harness {
  const started: { -readonly [K in keyof Harness]?: Harness[K] } = {};
  const closers: (() => Promise<unknown>)[] = [];

  beforeAll(async () => {
    const db = (started.db = await createTestDatabase());
    closers.push(() => db.close());
    for (const shop of options.shops ?? [TEST_SHOP])
      await seedOfflineSession(db.prisma, shop, { keyring: options.keyring });
    if (options.app) {
      const app = (started.app = await startApp(db, options.app.env, { logger: options.app.logger }));
      closers.push(() => app.close());
    }
    if (options.emulator) {
      if (options.emulator === "oauth" && !started.app)
        throw new Error('emulator "oauth" needs the app (its callback URL)');
      const emulator = (started.emulator = await (options.emulator === "oauth"
        ? startEmulatorFor(started.app!.url)
        : startTestEmulator()));
      closers.push(() => emulator.close());
    }
    if (options.browser) {
      const browser = (started.browser = await launchBrowser());
      closers.push(() => browser.close());
    }
  }, 240_000);

  afterAll(async () => {
    for (const close of closers.reverse()) await close();
  });

  const get = <K extends keyof Harness>(key: K): Harness[K] => {
    const value = started[key];
    if (!value) throw new Error(`harness: no ${key} (not asked for in withHarness, or its set-up failed)`);
    return value as Harness[K];
  };
  return {
    get db() {
      return get("db");
    },
    get app() {
      return get("app");
    },
    get emulator() {
      return get("emulator");
    },
    get browser() {
      return get("browser");
    },
  };
}
