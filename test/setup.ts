// Runs before every test file. Keeps test runs independent of a developer's own .env.
process.env.NODE_ENV ??= "test";
// The tests run the service emulator on loopback (the one documented opt-in; see docs/security.md).
process.env.ALLOW_LOOPBACK_SERVICE_URLS ??= "true";
