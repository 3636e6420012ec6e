# syntax=docker/dockerfile:1
# One image recipe for every service: docker build --build-arg APP=billing -t lim/billing .
# The build stages do not depend on APP, so the six images share their cached layers.
# The same image runs the service (default command) and its one-shot migration:
#   docker run lim/billing node dist/tools/migrate.js billing

ARG NODE_IMAGE=node:20-slim

# Production dependencies only, installed once from the lockfile.
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# Scripts off: `prepare` would build before the sources are here, and no dependency needs one.
# Type declarations, source maps and docs of the dependencies are not run: ~60 MB less.
RUN --mount=type=cache,target=/root/.npm npm ci --omit=dev --ignore-scripts \
 && find node_modules -type f \( -name '*.d.ts' -o -name '*.d.mts' -o -name '*.d.cts' -o -name '*.map' -o -name '*.md' \) -delete

# Compiler and sources: swc turns apps, libs and tools into dist/.
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN --mount=type=cache,target=/root/.npm npm ci --ignore-scripts
COPY .swcrc tsconfig.json nest-cli.json ./
COPY libs libs
COPY apps apps
COPY tools tools
# Nothing the runtime does not run: no tests, no source maps, no benchmarks or dev tools.
RUN npm run build \
 && find dist \( -name '*.spec.js' -o -name '*-spec.js' -o -name '*.map' \) -delete \
 && rm -rf dist/tools/bench dist/tools/mesh dist/tools/lockfile

FROM ${NODE_IMAGE}
ARG APP
ENV NODE_ENV=production APP=${APP} HTTP_HOST=0.0.0.0 EXPORT_STORAGE_DIR=/var/lib/lim/exports
WORKDIR /app
# npm and corepack are not needed to run: dropping them saves ~20 MB and their CVEs. The export
# directory is the only place the app writes (a volume in compose and Kubernetes).
RUN rm -rf /usr/local/lib/node_modules/npm /usr/local/lib/node_modules/corepack \
      /usr/local/bin/npm /usr/local/bin/npx /usr/local/bin/corepack \
 && mkdir -p /var/lib/lim/exports && chown node:node /var/lib/lim/exports
# Files stay owned by root and read-only to the app user: the root filesystem can be read-only.
COPY package.json nest-cli.json ./
COPY --from=deps /app/node_modules node_modules
COPY --from=build /app/dist dist
COPY docker/healthcheck.js docker/healthcheck.js
RUN test -n "$APP" && test -f "dist/apps/$APP/src/main.js" || { echo "build with --build-arg APP=<service>" >&2; exit 1; }
# V8 flags of every service (APP_NODE_FLAGS in tools/mesh/processes.ts: a 32 MB young generation
# semi-space, see there); a deployment may set NODE_OPTIONS to its own.
ENV NODE_OPTIONS="--max-semi-space-size=32"
# The image's `node` user, numeric so that Kubernetes' runAsNonRoot can check it.
USER 1000:1000
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 CMD ["node", "docker/healthcheck.js"]
# exec: node becomes PID 1 and receives SIGTERM itself, so shutdown hooks run. V8 flags NODE_OPTIONS
# does not accept (APP_V8_FLAGS in tools/mesh/processes.ts: the old generation's growing factor, see there).
CMD exec node --heap-growing-percent=200 dist/apps/${APP}/src/main.js
