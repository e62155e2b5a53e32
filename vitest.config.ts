import { defineConfig } from "vitest/config";
import tsconfigPaths from "vite-tsconfig-paths";

export default defineConfig({
  plugins: [tsconfigPaths()],
  // UI extensions (extensions/*/src, outside tsconfig) are JSX with Preact's automatic runtime (a pragma per file).
  esbuild: { jsx: "automatic" },
  test: {
    include: ["{app,emulator,test,scripts}/**/*.test.{ts,tsx}"],
    environment: "node",
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores on CI: more workers only contend for them.
    maxWorkers: 2,
    setupFiles: ["test/setup.ts"],
    // The app's production build is imported by Node as it is, not re-transformed by Vite.
    server: { deps: { external: [/\/build\/server\//] } },
  },
});
