# syntax=docker/dockerfile:1
# calsync: multi-stage build. Stage 1 installs everything and compiles; stage 2 holds production
# dependencies and the compiled output only, and runs as the unprivileged `node` user.

FROM node:20-bookworm-slim AS build
WORKDIR /app
# This registry serves no corepack signatures; pin pnpm to the lockfile's major.
ENV COREPACK_INTEGRITY_KEYS=0
RUN corepack enable && corepack prepare pnpm@10.34.8 --activate
COPY package.json pnpm-lock.yaml pnpm-workspace.yaml .npmrc tsconfig.base.json ./
COPY packages/domain/package.json packages/domain/
COPY packages/wire/package.json packages/wire/
COPY packages/ical/package.json packages/ical/
COPY packages/adapters-node/package.json packages/adapters-node/
COPY packages/adapters-postgres/package.json packages/adapters-postgres/
COPY packages/adapters-sms/package.json packages/adapters-sms/
COPY packages/adapters-fcm/package.json packages/adapters-fcm/
COPY packages/http-fastify/package.json packages/http-fastify/
COPY packages/testkit/package.json packages/testkit/
RUN pnpm install --frozen-lockfile
COPY packages packages
RUN pnpm exec tsc -b packages/http-fastify

FROM node:20-bookworm-slim AS runtime
WORKDIR /app
ENV NODE_ENV=production COREPACK_INTEGRITY_KEYS=0
RUN corepack enable && corepack prepare pnpm@10.34.8 --activate
COPY package.json pnpm-lock.yaml pnpm-workspace.yaml .npmrc ./
COPY packages/domain/package.json packages/domain/
COPY packages/wire/package.json packages/wire/
COPY packages/ical/package.json packages/ical/
COPY packages/adapters-node/package.json packages/adapters-node/
COPY packages/adapters-postgres/package.json packages/adapters-postgres/
COPY packages/adapters-sms/package.json packages/adapters-sms/
COPY packages/adapters-fcm/package.json packages/adapters-fcm/
COPY packages/http-fastify/package.json packages/http-fastify/
COPY packages/testkit/package.json packages/testkit/
RUN pnpm install --frozen-lockfile --prod && rm -rf /root/.local/share/pnpm/store
COPY --from=build /app/packages/domain/dist packages/domain/dist
COPY --from=build /app/packages/wire/dist packages/wire/dist
COPY --from=build /app/packages/ical/dist packages/ical/dist
COPY --from=build /app/packages/adapters-node/dist packages/adapters-node/dist
COPY --from=build /app/packages/adapters-postgres/dist packages/adapters-postgres/dist
COPY --from=build /app/packages/adapters-sms/dist packages/adapters-sms/dist
COPY --from=build /app/packages/adapters-fcm/dist packages/adapters-fcm/dist
COPY --from=build /app/packages/http-fastify/dist packages/http-fastify/dist
# PGlite (the default DATABASE_URL) keeps its files here; with PostgreSQL it stays empty.
RUN mkdir -p /app/.data && chown node:node /app/.data
USER node
EXPOSE 3000
HEALTHCHECK --interval=15s --timeout=3s --start-period=20s \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/health/ready').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["node", "packages/http-fastify/dist/main.js"]
