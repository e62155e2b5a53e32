// Runs before every test file. Keeps test runs independent of a developer's own .env.
process.env.NODE_ENV ??= "test";
// Quiet logs unless a run asks for them (LOG_LEVEL=debug npx vitest run …).
process.env.LOG_LEVEL ??= "silent";
