import { configDefaults, defineConfig } from "vitest/config";
import tsconfigPaths from "vite-tsconfig-paths";

// Files that load the whole machine (a clean clone installed and built): run last and alone, so the timing of the
// other tests (outages, restarts, full disks) is not measured beside an `npm ci`.
const ALONE = ["test/operations/production-build.test.ts"];

export default defineConfig({
  plugins: [tsconfigPaths()],
  // UI extensions (extensions/*/src, outside tsconfig) are JSX with Preact's automatic runtime (a pragma per file).
  esbuild: { jsx: "automatic" },
  test: {
    environment: "node",
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // One test file at a time: several files measure what a process does under load (outages, restarts, full
    // disks, connection bounds, 40 orders a second), and a second file beside them on two cores is noise they
    // would measure too.
    fileParallelism: false,
    maxWorkers: 1,
    setupFiles: ["test/setup.ts"],
    // The app's production build is imported by Node as it is, not re-transformed by Vite.
    server: { deps: { external: [/\/build\/server\//] } },
    projects: [
      {
        extends: true,
        test: {
          name: "suite",
          include: ["{app,emulator,test,scripts}/**/*.test.{ts,tsx}"],
          exclude: [...configDefaults.exclude, ...ALONE],
        },
      },
      { extends: true, test: { name: "alone", include: ALONE, fileParallelism: false, sequence: { groupOrder: 1 } } },
    ],
  },
});
