import { Server as HttpServer } from 'node:http';
import * as nodeModule from 'node:module';
import { INestApplication, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { MicroserviceOptions } from '@nestjs/microservices';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { ServiceConfig } from './config';
import { MigrationClass } from './data-source';
import { runMigrations } from './migrations/migrator';
import { rootLogger } from './logger';
import { PinoNestLogger } from './nest-logger';
import { initTracing } from './tracing';
import { Logger } from 'pino';
import { Pool } from 'pg';
import { DatabaseState, DatabaseWatch } from './database-watch';
import { natsConnectOptions } from './nats-auth';
import { exitWhenBusClosedForGood } from './nats';
import { NatsRpcServer } from './nats-rpc.server';
import { PG_POOL } from './tokens';
import { warmUp, WarmUpCall, WarmUpState } from './warm-up';

export interface ServiceBootOptions {
  config: ServiceConfig;
  module: Type<unknown> | import('@nestjs/common').DynamicModule;
  /** The service's TypeORM migrations, oldest first; applied before the module starts. */
  migrations: MigrationClass[];
  /** Listen for NATS request-reply in the service's queue group (all but the gateway). */
  microservice?: boolean;
  /** False when the app installs its own body parsers (the gateway does). */
  bodyParser?: boolean;
  configure?: (app: NestFastifyApplication) => void | Promise<void>;
  adapter?: FastifyAdapter;
  /** One request of each kind the service serves, asked of its own handlers before it joins its queue groups (warm-up.ts). */
  warmUp?: WarmUpCall[];
}

/**
 * Starts a service: migrates its database, serves HTTP (health, metrics; the API on the
 * gateway), warms its paths (its pool's connections, one request of each kind it serves: warm-up.ts,
 * within WARM_UP_DEADLINE_MS), then subscribes to its NATS subjects in a queue group named after
 * the service and answers ready; so the first requests after a restart pay no cold start. While
 * its database does not answer, the service stays out of its queue groups (DatabaseWatch), so
 * requests go to the replicas that can serve them. SIGTERM drains it (see stopGracefully).
 */
export async function startService(options: ServiceBootOptions): Promise<INestApplication> {
  const { config } = options;
  process.env.SERVICE_NAME = config.service;
  exitWhenBusClosedForGood();
  const log = rootLogger(config.service);
  initTracing(config.service, process.env);
  await runMigrations(config.databaseUrl, options.migrations);
  const app = await NestFactory.create<NestFastifyApplication>(
    options.module as Type<unknown>,
    options.adapter ?? new FastifyAdapter(),
    { logger: new PinoNestLogger(log), bodyParser: options.bodyParser ?? true },
  );
  let server: NatsRpcServer | undefined;
  if (options.microservice !== false) {
    server = new NatsRpcServer({ connection: natsConnectOptions(config.nats, `${config.service}-rpc`), queue: config.service, joinLater: true });
    app.connectMicroservice<MicroserviceOptions>({ strategy: server }, { inheritAppConfig: true });
  }
  await options.configure?.(app);
  await app.startAllMicroservices();
  await app.listen(config.httpPort, config.httpHost);
  await warmUp({ app, server, pool: app.get<Pool>(PG_POOL), calls: options.warmUp ?? [], deadlineMs: config.warmUpDeadlineMs, log });
  await server?.join();
  app.get(WarmUpState).end();
  let watch: DatabaseWatch | undefined;
  if (server) {
    const rpc = server;
    const state = app.get(DatabaseState);
    watch = new DatabaseWatch(config.databaseUrl, app.get<Pool>(PG_POOL), config.dbProbeIntervalMs, (up) => {
      state.changed(up);
      return up ? rpc.join() : rpc.leave();
    }, log);
    watch.start();
    state.watching();
  }
  stopGracefully(app, { server, watch, graceMs: config.shutdownGraceMs, log });
  log.info({ port: config.httpPort }, `${config.service} ready`);
  return app;
}

/**
 * SIGTERM (and SIGINT) stop the process without failing a request it accepted. First intake
 * stops: a service leaves its queue groups (nats-server sends the other replicas every request
 * from then on) and waits for the requests it holds to be answered, replies and calls to peers
 * still going out on open connections; HTTP stops accepting connections and finishes the
 * requests in flight (the gateway's API). Then Nest's shutdown: event consumers stop, the outbox
 * relay publishes what is left, connections and pools close. `graceMs` bounds each wait for
 * requests; the process exits 0.
 */
function stopGracefully(
  app: INestApplication,
  parts: { server?: NatsRpcServer; watch?: DatabaseWatch; graceMs: number; log: Logger },
): void {
  const { server, watch, graceMs, log } = parts;
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'stopping: draining requests');
    void (async () => {
      watch?.stop();
      if (server && !(await server.drain(graceMs))) log.warn({ grace_ms: graceMs }, 'stopping with requests still running');
      // a keep-alive connection closes once its response is sent, instead of holding close() for its idle timeout
      (app.getHttpServer() as HttpServer).keepAliveTimeout = 1;
      await withGrace(app.getHttpAdapter().close(), graceMs);
      await app.close();
    })().then(
      () => process.exit(0),
      (err: Error) => {
        log.error({ err: err.message }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

function withGrace(work: Promise<unknown>, ms: number): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([work, new Promise((resolve) => (timer = setTimeout(resolve, ms)))]).finally(() => clearTimeout(timer));
}

/**
 * The argument that makes a service's entry point write its compile cache and exit instead of
 * starting: `node <flags> dist/apps/<service>/main.js --prepare-compile-cache` with
 * NODE_COMPILE_CACHE set. By then the whole bundle has been loaded (its modules evaluated), so
 * the cache holds what a start compiles first; the image's build runs it (Dockerfile), so a new
 * pod and a restarted container start from it (docs/deployment.md, `NODE_COMPILE_CACHE`).
 */
export const PREPARE_COMPILE_CACHE_ARG = '--prepare-compile-cache';

/**
 * Writes node's compile cache (module.flushCompileCache) and exits 0; exits 1, saying why, when no
 * cache is enabled (NODE_COMPILE_CACHE unset, or a Node without one: 22.10+ has it), so an image
 * build that would ship without its cache fails instead.
 */
export function prepareCompileCache(): number {
  const dir = typeof nodeModule.getCompileCacheDir === 'function' ? nodeModule.getCompileCacheDir() : undefined;
  if (dir === undefined) {
    process.stderr.write(`${PREPARE_COMPILE_CACHE_ARG}: no compile cache is enabled (set NODE_COMPILE_CACHE to a directory; Node 22.10 or later, this is ${process.version})\n`);
    return 1;
  }
  nodeModule.flushCompileCache();
  process.stderr.write(`${PREPARE_COMPILE_CACHE_ARG}: compile cache written to ${dir}\n`);
  return 0;
}

/**
 * Entry-point wrapper: a start-up failure is one clear log line and exit code 1. With
 * PREPARE_COMPILE_CACHE_ARG the service does not start: the cache is written (prepareCompileCache).
 */
export function runMain(start: () => Promise<unknown>, argv: readonly string[] = process.argv): void {
  if (argv.slice(2).includes(PREPARE_COMPILE_CACHE_ARG)) {
    process.exit(prepareCompileCache());
  }
  start().catch((err: Error) => {
    rootLogger().fatal({ err: err.message }, 'start-up failed');
    process.exit(1);
  });
}
