import { INestApplication, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { MicroserviceOptions } from '@nestjs/microservices';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { ServiceConfig } from './config';
import { Migration, prepareDatabase } from './db';
import { rootLogger } from './logger';
import { PinoNestLogger } from './nest-logger';
import { initTracing } from './tracing';
import { CoalescingServerNats, NATS_CONNECTION_DEFAULTS } from './nats';
import { natsConnectOptions } from './nats-auth';

export interface ServiceBootOptions {
  config: ServiceConfig;
  module: Type<unknown> | import('@nestjs/common').DynamicModule;
  migrations: Migration[];
  /** Listen for NATS request-reply in the service's queue group (all but the gateway). */
  microservice?: boolean;
  /** False when the app installs its own body parsers (the gateway does). */
  bodyParser?: boolean;
  configure?: (app: NestFastifyApplication) => void | Promise<void>;
  adapter?: FastifyAdapter;
}

/**
 * Starts a service: migrates its database, serves HTTP (health, metrics; the API on the
 * gateway) and subscribes to its NATS subjects in a queue group named after the service.
 * SIGTERM closes the NATS subscriptions first, then the HTTP server, then the pools.
 */
export async function startService(options: ServiceBootOptions): Promise<INestApplication> {
  const { config } = options;
  process.env.SERVICE_NAME = config.service;
  const log = rootLogger(config.service);
  initTracing(config.service);
  await prepareDatabase(config.databaseUrl, options.migrations);
  const app = await NestFactory.create<NestFastifyApplication>(
    options.module as Type<unknown>,
    options.adapter ?? new FastifyAdapter(),
    { logger: new PinoNestLogger(log), bodyParser: options.bodyParser ?? true },
  );
  if (options.microservice !== false) {
    app.connectMicroservice<MicroserviceOptions>(
      { strategy: new CoalescingServerNats({ ...NATS_CONNECTION_DEFAULTS, ...natsConnectOptions(config.nats, `${config.service}-rpc`), queue: config.service }) },
      { inheritAppConfig: true },
    );
  }
  await options.configure?.(app);
  app.enableShutdownHooks(['SIGTERM', 'SIGINT'], { useProcessExit: true });
  await app.startAllMicroservices();
  await app.listen(config.httpPort, config.httpHost);
  log.info({ port: config.httpPort }, `${config.service} ready`);
  return app;
}

/** Entry-point wrapper: a start-up failure is one clear log line and exit code 1. */
export function runMain(start: () => Promise<unknown>): void {
  start().catch((err: Error) => {
    rootLogger().fatal({ err: err.message }, 'start-up failed');
    process.exit(1);
  });
}
