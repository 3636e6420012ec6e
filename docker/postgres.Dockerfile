# syntax=docker/dockerfile:1
# The compose file's PostgreSQL (docker-compose.yml `postgres`): the official image of PostgreSQL 15
# with the `rum` extension, which search's ranking indexes need when SEARCH_INDEX=rum (docs/decisions.md,
# "Search index: rank bands or RUM"). The base keeps the PostgreSQL project's apt repository, which
# ships postgresql-<major>-rum; PG_MAJOR is the base image's own.
#   docker build -f docker/postgres.Dockerfile -t lim/postgres:15 .
ARG POSTGRES_IMAGE=postgres:15-bookworm
FROM ${POSTGRES_IMAGE}
RUN apt-get update \
 && apt-get install -y --no-install-recommends "postgresql-${PG_MAJOR}-rum" \
 && rm -rf /var/lib/apt/lists/*
