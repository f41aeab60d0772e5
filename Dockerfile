# syntax=docker/dockerfile:1
# The sample apps (apps/order-service, apps/shipping-service, apps/relay) as one image that runs
# compiled JavaScript with plain node. docker-compose.yml picks the app by its command:
#   docker build -t nest-outbox-apps .
#   docker run --rm nest-outbox-apps node dist/apps/relay/src/main.js
ARG NODE_IMAGE=node:20-bookworm-slim

# 1. The manifests npm ci needs: the root's and each workspace's (libs/*).
FROM ${NODE_IMAGE} AS manifests
WORKDIR /app
COPY package.json package-lock.json ./
COPY libs/core/package.json libs/core/
COPY libs/outbox/package.json libs/outbox/
COPY libs/relay/package.json libs/relay/
COPY libs/relay-console/package.json libs/relay-console/
COPY libs/inbox/package.json libs/inbox/

# 2. Every dependency (the build needs TypeScript), from the lockfile.
FROM manifests AS deps
RUN npm ci --no-audit --no-fund --ignore-scripts

# 3. Compile the five libraries and the apps (tsc -b: libs/*/dist and dist/apps).
FROM deps AS build
COPY tsconfig.base.json tsconfig.apps.json ./
COPY libs libs
COPY apps apps
RUN npx tsc -b tsconfig.apps.json

# 4. Runtime dependencies only; the workspace links node_modules/@nest-outbox/* to libs/*.
FROM manifests AS runtime-deps
RUN npm ci --omit=dev --no-audit --no-fund --ignore-scripts

# 5. What runs: runtime node_modules, each library's package.json + dist, the compiled apps.
FROM ${NODE_IMAGE} AS app
ENV NODE_ENV=production \
    KAFKAJS_NO_PARTITIONER_WARNING=1
WORKDIR /app
COPY --from=runtime-deps /app/package.json ./
COPY --from=runtime-deps /app/node_modules node_modules
COPY --from=build /app/libs/core/package.json libs/core/
COPY --from=build /app/libs/core/dist libs/core/dist
COPY --from=build /app/libs/outbox/package.json libs/outbox/
COPY --from=build /app/libs/outbox/dist libs/outbox/dist
COPY --from=build /app/libs/relay/package.json libs/relay/
COPY --from=build /app/libs/relay/dist libs/relay/dist
COPY --from=build /app/libs/relay-console/package.json libs/relay-console/
COPY --from=build /app/libs/relay-console/dist libs/relay-console/dist
COPY --from=build /app/libs/relay-console/static libs/relay-console/static
COPY --from=build /app/libs/inbox/package.json libs/inbox/
COPY --from=build /app/libs/inbox/dist libs/inbox/dist
COPY --from=build /app/dist/apps dist/apps
USER node
EXPOSE 3000 3001 3100
CMD ["node", "dist/apps/order-service/src/main.js"]
