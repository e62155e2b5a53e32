// Imported first by the process entries (server/main.ts, server/worker.ts), which run the production build: an
// unset NODE_ENV means production there, so `npm start`, `npm run start:worker` and a bare
// `node build/server-main.js` never fall back to the development defaults (app/env.server.ts: the public built-in
// Shopify credentials, a generated key). An explicit NODE_ENV still wins (the tests set "test").
process.env.NODE_ENV ||= "production";

export {};
