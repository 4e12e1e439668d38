# syntax=docker/dockerfile:1
# The Agent Commerce Service as one image: `docker compose up` (compose.yaml) runs it beside PostgreSQL,
# Meilisearch and Redis. Two stages: `build` installs with npm ci (its postinstall generates the Prisma client),
# builds Next and drops the dev dependencies; `runtime` holds only that result and runs as the unprivileged
# `node` user of the official image. The start command is `npm start`'s (scripts/serve.ts: migrations, then
# serve). scripts/check-dockerfile-commands.ts runs these RUN and CMD lines outside Docker as a non-root user.

ARG NODE_IMAGE=node:24-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
ENV NEXT_TELEMETRY_DISABLED=1
# The lock file and what postinstall reads first, so the dependency layer is cached until they change.
COPY package.json package-lock.json prisma.config.ts ./
COPY prisma ./prisma
COPY scripts/prisma-generate.ts ./scripts/prisma-generate.ts
# the agent kit is an npm workspace: npm ci links it, and postinstall builds it
COPY packages ./packages
RUN npm ci --no-audit --no-fund
COPY . .
RUN npx next build
RUN npm prune --omit=dev --no-audit --no-fund

FROM ${NODE_IMAGE} AS runtime
WORKDIR /app
# MALLOC_MMAP_THRESHOLD_: glibc maps large blocks on their own and gives them back when freed (npm start sets it
# too; SERVER_MALLOC_ENV in scripts/lib/paths.ts says why)
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    NEXT_TELEMETRY_DISABLED=1 \
    MALLOC_MMAP_THRESHOLD_=131072
COPY --from=build --chown=node:node /app ./
USER node
EXPOSE 3000
# Liveness only (/readyz also checks the database and search engine: for a load balancer, not for restarts).
HEALTHCHECK --interval=15s --timeout=5s --start-period=90s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + process.env.PORT + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# SIGTERM drains requests in flight and stops the webhook worker before exiting (docs/decisions.md).
STOPSIGNAL SIGTERM
CMD ["node", "--max-semi-space-size=8", "--import", "tsx", "scripts/serve.ts"]
