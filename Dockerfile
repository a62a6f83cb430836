# syntax=docker/dockerfile:1
# Reference server for the Generic Project-Scoped Resource API.
#   docker build -t resource-api .
#   docker run -p 8080:8080 -e DATABASE_URL=postgres://user:pass@host:5432/db resource-api
# Without DATABASE_URL the container runs the embedded database (PGlite) in /app/data: mount a volume
# there to keep the data, and run one container per volume (the directory is locked).
# scripts/container-test.sh builds this file with a real Docker engine and runs the image on both databases
# (CI runs it); it makes the base image locally when no registry is reachable.

ARG NODE_IMAGE=node:20-bookworm-slim

# ---- build stage: all dependencies, compile TypeScript to dist/ (SWC; `npm test` type-checks) ----
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY .swcrc ormconfig.ts ./
COPY scripts/build.mjs ./scripts/
COPY src ./src
RUN npm run build

# ---- runtime stage: production dependencies and the compiled output only ----
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
# The embedded database's default DATA_DIR (./data) must be writable by the unprivileged user.
RUN mkdir -p /app/data && chown node:node /app/data
USER node
ENV PORT=8080
# glibc allocator and V8 settings, as scripts/server-env.mjs gives `npm start` (docs/performance.md#memory).
ENV MALLOC_ARENA_MAX=2 MALLOC_MMAP_THRESHOLD_=131072 NODE_OPTIONS=--max-semi-space-size=32
EXPOSE 8080
# No curl in slim images: node itself asks /health/ready (200 once the database answers).
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/health/ready', { signal: AbortSignal.timeout(4000) }).then((r) => process.exit(r.status === 200 ? 0 : 1), () => process.exit(1))"]
CMD ["node", "dist/src/main.js"]
