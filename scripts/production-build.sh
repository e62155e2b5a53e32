#!/bin/sh
# The production build, in the steps the Dockerfile runs (and test/operations/production-build.test.ts runs from a
# clean clone, so the two cannot drift):
#   install  every dependency exactly as the lockfile pins it (the build needs Vite, Remix's compiler, esbuild);
#            the postinstall script generates Prisma's client
#   build    the app and the server entries, then drop the development dependencies
# Then `npm start` (migrates, then serves) or `npm run start:worker` runs it, on Node 22 from the platform.
set -eu
step="${1:?usage: scripts/production-build.sh install|build}"
case "$step" in
  install)
    # --include=dev: NODE_ENV=production in the environment would otherwise leave out what the build needs.
    npm ci --include=dev --no-audit --no-fund
    ;;
  build)
    npm run build
    npm prune --omit=dev --no-audit --no-fund
    ;;
  *)
    echo "unknown step: $step (install or build)" >&2
    exit 2
    ;;
esac
