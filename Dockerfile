# syntax=docker/dockerfile:1
# One image per service, each with that service's code and production dependencies only:
#   docker build --build-arg APP=billing --build-arg VERSION=0.1.0 --build-arg REVISION=$(git rev-parse HEAD) -t lim/billing .
# The dependency and build stages do not depend on APP, so the six builds share their cached
# layers; the `image` stage picks what APP's entry points require (tools/image/deps.ts).
# The same image runs the service (default command) and its one-shot migration:
#   docker run lim/billing node dist/tools/migrate.js billing
# The gateway's also holds the admin CLI (dist/apps/admin/src/main.js) and the bus's set-up step
# (dist/tools/nats-setup.js, docker-compose.yml's `nats-config`).

# Node 24, the current LTS, pinned by digest: a rebuild gets the same base until the pin moves.
# The digest is the multi-platform index of node:24-bookworm-slim (24.18.0 when pinned). To move
# it: docker buildx imagetools inspect node:24-bookworm-slim --format '{{json .Manifest.Digest}}'
# and replace it here; test/deploy/compose.spec.ts checks its form.
ARG NODE_IMAGE=node:24-bookworm-slim@sha256:6f7b03f7c2c8e2e784dcf9295400527b9b1270fd37b7e9a7285cf83b6951452d

# Production dependencies of every service, installed once from the lockfile.
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
RUN npm run build

# APP's files only: the compiled files its main and the migration entry reach, and the production
# packages they require with what those need (from the lockfile). A require it cannot follow
# fails the build. No tests, source maps, benchmarks, dev tools or other services' code.
FROM build AS image
ARG APP
RUN test -n "$APP" || { echo "build with --build-arg APP=<service>" >&2; exit 1; }
COPY --from=deps /app/node_modules /prod/node_modules
RUN node dist/tools/image/deps.js "$APP" /image --modules /prod \
 && cp package.json nest-cli.json /image/

FROM ${NODE_IMAGE}
ARG APP
ARG VERSION=0.0.0-dev
ARG REVISION=unknown
LABEL org.opencontainers.image.title="lim-${APP}" \
      org.opencontainers.image.description="Lead Intelligence API: the ${APP} service" \
      org.opencontainers.image.source="https://github.com/leadintel/lead-intelligence-mesh" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.licenses="UNLICENSED"
ENV NODE_ENV=production APP=${APP} HTTP_HOST=0.0.0.0 EXPORT_STORAGE_DIR=/var/lib/lim/exports
WORKDIR /app
# npm and corepack are not needed to run: dropping them saves ~20 MB and their CVEs. The export
# directory is the only place the app writes (a volume in compose and Kubernetes); compose's
# `nats-config` step writes the bus's configuration and identities to /var/lib/lim/nats (a
# volume, which takes the directory's owner when first mounted, so uid 1000 may write it).
RUN rm -rf /usr/local/lib/node_modules/npm /usr/local/lib/node_modules/corepack \
      /usr/local/bin/npm /usr/local/bin/npx /usr/local/bin/corepack \
 && mkdir -p /var/lib/lim/exports /var/lib/lim/nats && chown node:node /var/lib/lim/exports /var/lib/lim/nats
# Files stay owned by root and read-only to the app user: the root filesystem can be read-only.
COPY --from=image /image/ ./
COPY docker/healthcheck.js docker/healthcheck.js
RUN test -f "dist/apps/$APP/main.js" && test -f dist/tools/migrate.js \
 && { [ "$APP" != gateway ] || { test -f dist/apps/admin/src/main.js && test -f dist/tools/nats-setup.js; }; }
# V8 flags of every service (APP_NODE_FLAGS in tools/mesh/processes.ts: a 32 MB young generation
# semi-space, see there); a deployment may set NODE_OPTIONS to its own.
ENV NODE_OPTIONS="--max-semi-space-size=32"
# node's compile cache, made here: the service's bundle loaded once with the CMD's flags and as its
# user (node keys the cache by version, flags and uid), its modules' V8 code written, then the
# files made root's and read-only. A new pod and a restarted container compile from it: a fifth
# less CPU a start (docs/deployment.md, `NODE_COMPILE_CACHE`). Under another uid, or other flags, node finds
# no cache of theirs and compiles as before.
ENV NODE_COMPILE_CACHE=/var/cache/lim/node-compile-cache
RUN mkdir -p "$NODE_COMPILE_CACHE" && chown 1000:1000 "$NODE_COMPILE_CACHE"
USER 1000:1000
RUN node --heap-growing-percent=200 dist/apps/${APP}/main.js --prepare-compile-cache
USER 0:0
RUN chown -R 0:0 "$NODE_COMPILE_CACHE" && chmod -R a+rX,go-w "$NODE_COMPILE_CACHE"
# The image's `node` user, numeric so that Kubernetes' runAsNonRoot can check it.
USER 1000:1000
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 CMD ["node", "docker/healthcheck.js"]
# exec: node becomes PID 1 and receives SIGTERM itself, so shutdown hooks run. V8 flags NODE_OPTIONS
# does not accept (APP_V8_FLAGS in tools/mesh/processes.ts: the old generation's growing factor, see there).
# dist/apps/$APP/main.js is the service bundled with its packages (tools/build/bundle.ts, made by
# `npm run build`): one file to read and compile at start instead of about 2,000.
CMD exec node --heap-growing-percent=200 dist/apps/${APP}/main.js
