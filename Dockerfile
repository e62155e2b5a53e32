# The app's image: the web process by default, the sync worker from the same image with
# `docker run … npm run start:worker` (docs/operations.md). Both apply pending migrations at start.
# Build and install steps are scripts/production-build.sh's, which the tests run from a clean clone.
FROM node:22-bookworm-slim

WORKDIR /app

# What `npm ci` needs (its postinstall generates Prisma's client from the schema), in a layer of its own so that a
# change to the app's code does not reinstall.
COPY package.json package-lock.json prisma.config.ts ./
COPY prisma ./prisma
COPY scripts/production-build.sh ./scripts/
RUN --mount=type=cache,target=/root/.npm sh scripts/production-build.sh install

COPY . .
RUN --mount=type=cache,target=/root/.npm sh scripts/production-build.sh build \
  && mkdir -p data && chown node:node data

ENV NODE_ENV=production \
    PORT=3000 \
    HOST=0.0.0.0
USER node
EXPOSE 3000
CMD ["npm", "start"]
