// Runs before every test file. Keeps test runs independent of a developer's own .env.
process.env.NODE_ENV ??= "test";
