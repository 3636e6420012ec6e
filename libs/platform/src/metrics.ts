import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** The process's Prometheus registry, served at GET /metrics by every app. */
export const metricsRegistry = new Registry();
let defaultsCollected = false;

export function collectProcessMetrics(service: string): void {
  if (defaultsCollected) return;
  defaultsCollected = true;
  metricsRegistry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: metricsRegistry });
}

const LATENCY_BUCKETS = [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** A metric is created once per process however many times it is asked for. */
function once<M>(name: string, make: () => M): M {
  return (metricsRegistry.getSingleMetric(name) as M | undefined) ?? make();
}

export function counter<L extends string>(name: string, help: string, labelNames: readonly L[]): Counter<L> {
  return once(name, () => new Counter({ name, help, labelNames, registers: [metricsRegistry] }));
}

export function histogram<L extends string>(name: string, help: string, labelNames: readonly L[], buckets = LATENCY_BUCKETS): Histogram<L> {
  return once(name, () => new Histogram({ name, help, labelNames, buckets, registers: [metricsRegistry] }));
}

export function gauge<L extends string>(
  name: string,
  help: string,
  labelNames: readonly L[],
  collect?: (this: Gauge<L>) => void | Promise<void>,
): Gauge<L> {
  return once(name, () => new Gauge({ name, help, labelNames, registers: [metricsRegistry], collect }));
}

/** What the gauges below read: a pg Pool (its counters) that also answers queries. */
interface ObservedPool {
  totalCount: number;
  idleCount: number;
  waitingCount: number;
  query<R>(sql: string): Promise<{ rows: R[] }>;
}

/**
 * The process's PostgreSQL pool, read at each scrape: connections in use (checked out), idle, and
 * callers waiting for one (the pool at PG_POOL_MAX and every connection busy).
 */
export function observePool(pool: ObservedPool): void {
  gauge('pg_pool_connections_in_use', 'PostgreSQL connections of the pool checked out by a caller', [], function collect() {
    this.set(pool.totalCount - pool.idleCount);
  });
  gauge('pg_pool_connections_idle', 'PostgreSQL connections of the pool open and idle', [], function collect() {
    this.set(pool.idleCount);
  });
  gauge('pg_pool_waiting_clients', 'Callers waiting for a PostgreSQL connection of the pool (all in use)', [], function collect() {
    this.set(pool.waitingCount);
  });
}

/**
 * A backlog counted at each scrape by `countSql` (one row, column `n`: keep it on a partial
 * index). A failed count (database down) keeps the last value: readiness reports the database.
 */
export function backlogGauge(name: string, help: string, pool: ObservedPool, countSql: string): void {
  gauge(name, help, [], async function collect() {
    try {
      const { rows } = await pool.query<{ n: string | number }>(countSql);
      this.set(Number(rows[0]?.n ?? 0));
    } catch {
      // the last value stands
    }
  });
}
