// Runs before every test file. Keeps test runs independent of a developer's own .env.
import { randomBytes } from "node:crypto";

process.env.NODE_ENV ??= "test";
// Quiet logs unless a run asks for them (LOG_LEVEL=debug npx vitest run …).
process.env.LOG_LEVEL ??= "silent";
// One key for the run, shared by the test's own modules, the app's build it imports and the processes it starts,
// so a session the test stores encrypted is one the app can read.
process.env.ENCRYPTION_KEYS ??= `test:${randomBytes(32).toString("base64")}`;
// The tests run the service emulator on loopback (the one documented opt-in; see docs/security.md).
process.env.ALLOW_LOOPBACK_SERVICE_URLS ??= "true";
