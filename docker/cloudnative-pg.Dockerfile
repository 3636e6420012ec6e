# syntax=docker/dockerfile:1
# The CloudNativePG operand image of the project's PostgreSQL clusters (k8s/examples/postgres): the
# operator's PostgreSQL 16 image with the `rum` extension, which search's ranking indexes need when
# SEARCH_INDEX=rum (docs/decisions.md, "Search index: rank bands or RUM"). The base is Debian with the
# PostgreSQL project's apt repository (postgresql-<major>-rum); it runs as the postgres user (26).
#   docker build -f docker/cloudnative-pg.Dockerfile -t <registry>/lim-postgresql:16.4-rum .
# and set the Cluster's spec.imageName to it.
ARG CNPG_IMAGE=ghcr.io/cloudnative-pg/postgresql:16.4
FROM ${CNPG_IMAGE}
USER root
RUN apt-get update \
 && apt-get install -y --no-install-recommends "postgresql-${PG_MAJOR}-rum" \
 && rm -rf /var/lib/apt/lists/*
USER 26
