/**
 * Unit specs run without PostgreSQL or NATS: every address a service or a client would read
 * points at a closed port or a missing socket directory, so a spec that reaches for a database or
 * the bus fails here instead of passing on a developer's machine and failing in CI.
 */
const NOWHERE = '127.0.0.1:9';
process.env.DATABASE_URL = `postgres://unit-specs-have-no-database@${NOWHERE}/none`;
process.env.PGHOST = '/nonexistent/unit-specs-have-no-database';
process.env.PGPORT = '9';
process.env.NATS_URL = `nats://${NOWHERE}`;
