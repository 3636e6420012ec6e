import {
  BeforeApplicationShutdown, DynamicModule, Global, Inject, Module, OnApplicationBootstrap, OnApplicationShutdown, Provider,
} from '@nestjs/common';
import { DiscoveryModule, DiscoveryService } from '@nestjs/core';
import { TerminusModule } from '@nestjs/terminus';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { NatsConnection } from '@nats-io/transport-node';
import { Pool } from 'pg';
import { NATS_DURABLES, NATS_EVENT_OWNERS, natsDurablesOf } from '@app/contracts';
import { ServiceConfig } from './config';
import { poolOf, serviceDataSourceOptions } from './data-source';
import { deadEventsControllerFor } from './dead-events.controller';
import { DeadEventsRepository } from './dead-events.repository';
import { DeadLetters } from './dead-letters';
import { BatchEventConsumer, consumerFilter, discoverConsumers, EventConsumer } from './event-consumer';
import { DatabaseState } from './database-watch';
import { HealthController } from './health.controller';
import { collectProcessMetrics, gauge, observePool } from './metrics';
import { observeConsumer } from './jetstream-metrics';
import { MetricsController } from './metrics.controller';
import { pingControllerFor } from './ping.controller';
import { rootLogger } from './logger';
import { connectNats } from './nats';
import { OutboxRelay } from './outbox-relay';
import { OutboxRepository } from './outbox.repository';
import { shutdownTracing } from './tracing';
import { DEAD_LETTERS, NATS_CONNECTION, PG_POOL, SERVICE_CONFIG } from './tokens';
import { UnitOfWork } from './unit-of-work';
import { WarmUpState } from './warm-up';

export interface PlatformOptions {
  /** Run the outbox relay in this process (default true). */
  relay?: boolean;
}

/**
 * Runtime plumbing every service shares: its TypeORM DataSource and the pool under it, a NATS
 * connection, the outbox relay, durable event consumers with their dead-letter store, and the
 * health endpoints. The consumers are the service's `@DurableConsumer` providers, found at
 * bootstrap, so Nest makes them with whatever they inject.
 */
@Global()
@Module({})
export class PlatformModule implements OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown {
  private relay?: OutboxRelay;
  private readonly consumers: (EventConsumer | BatchEventConsumer)[] = [];

  constructor(
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig & PlatformOptions,
    private readonly outbox: OutboxRepository,
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    @Inject(DEAD_LETTERS) private readonly deadLetters: DeadLetters,
    private readonly uow: UnitOfWork,
    private readonly discovery: DiscoveryService,
  ) {}

  static forService(config: ServiceConfig, options: PlatformOptions = {}): DynamicModule {
    const providers: Provider[] = [
      { provide: SERVICE_CONFIG, useValue: { ...config, ...options } },
      // the one pool of the process is TypeORM's: hand-written SQL takes its clients from it
      {
        provide: PG_POOL,
        inject: [DataSource],
        useFactory: (dataSource: DataSource) => {
          const pool = poolOf(dataSource);
          observePool(pool);
          return pool;
        },
      },
      // the one way a service asks for a transaction (unit-of-work.ts)
      { provide: UnitOfWork, inject: [DataSource], useFactory: (dataSource: DataSource) => new UnitOfWork(dataSource) },
      // whether the start-up warm-up has ended (startService ends it; readiness reads it)
      WarmUpState,
      // whether the database answers, as the DatabaseWatch judges it (startService feeds it; readiness reads it)
      DatabaseState,
      { provide: NATS_CONNECTION, useFactory: () => connectNats(config.nats, config.service, rootLogger(config.service)) },
      { provide: OutboxRepository, inject: [PG_POOL], useFactory: (pool: Pool) => new OutboxRepository(pool) },
      {
        provide: DEAD_LETTERS,
        inject: [PG_POOL],
        useFactory: (pool: Pool) => new DeadLetters(config.service, new DeadEventsRepository(pool), rootLogger(config.service), config.eventRetry),
      },
    ];
    // a service with durable consumers keeps a dead-letter store (DEAD_EVENTS_MIGRATION) the operator reads
    const consumes = natsDurablesOf(config.service).length > 0;
    collectProcessMetrics(config.service);
    return {
      module: PlatformModule,
      imports: [
        TerminusModule.forRoot({ gracefulShutdownTimeoutMs: 0 }),
        DiscoveryModule,
        TypeOrmModule.forRootAsync({
          // the service's database is migrated before the module starts (startService), so its
          // first connection failing is a start-up failure, not something to retry for 27 s
          useFactory: () => ({ ...serviceDataSourceOptions({ databaseUrl: config.databaseUrl, pool: config.pool }), autoLoadEntities: true, retryAttempts: 0 }),
        }),
      ],
      controllers: [
        HealthController,
        MetricsController,
        ...(config.service === 'gateway' ? [] : [pingControllerFor(config.service)]),
        ...(consumes ? [deadEventsControllerFor(config.service)] : []),
      ],
      providers,
      exports: [PG_POOL, UnitOfWork, NATS_CONNECTION, SERVICE_CONFIG, DEAD_LETTERS, WarmUpState, DatabaseState],
    };
  }

  async onApplicationBootstrap(): Promise<void> {
    const log = rootLogger(this.config.service);
    const specs = discoverConsumers(this.discovery);
    // nats-server grants the service these durables with these filters only: a consumer the
    // contract does not declare would be refused by the server, so say which one at once
    for (const spec of specs) {
      const durables = NATS_DURABLES[this.config.service];
      const granted = Object.hasOwn(durables, spec.durable) ? durables[spec.durable] : undefined;
      if (granted !== consumerFilter(spec)) {
        throw new Error(
          `durable consumer ${spec.durable} of ${this.config.service} reads ${consumerFilter(spec)}, ` +
            `but libs/contracts/src/nats-flows.ts (NATS_DURABLES) grants it ${granted === undefined ? 'no such durable' : granted}`,
        );
      }
    }
    this.observeOutbox();
    if (natsDurablesOf(this.config.service).length > 0) this.deadLetters.observe();
    // a service that records no events (webhooks) has nothing to relay: no LISTEN connection taken from its pool
    if (this.config.relay !== false && NATS_EVENT_OWNERS[this.config.service].length > 0) {
      this.relay = new OutboxRelay(this.uow, this.outbox, this.nc, log);
      await this.relay.start();
    }
    for (const spec of specs) {
      const consumer = 'batch' in spec ? new BatchEventConsumer(this.nc, spec, log, this.deadLetters) : new EventConsumer(this.nc, this.uow, spec, log, this.deadLetters);
      await consumer.start();
      this.consumers.push(consumer);
      observeConsumer(this.nc, spec.durable);
    }
  }

  /** Outbox lag, read from the database when Prometheus scrapes. */
  private observeOutbox(): void {
    const outbox = this.outbox;
    gauge('outbox_pending_events', 'Events written to the outbox and not yet published to JetStream', [], async function collect() {
      try {
        const { pending, oldestAgeSeconds } = await outbox.backlog();
        this.set(pending);
        oldest.set(oldestAgeSeconds);
      } catch {
        // the database is down: readiness says so; the last values stand
      }
    });
    const oldest = gauge('outbox_oldest_pending_seconds', 'Age of the oldest unpublished outbox event', []);
  }

  async beforeApplicationShutdown(): Promise<void> {
    await Promise.all(this.consumers.map((c) => c.stop()));
    await this.relay?.stop();
  }

  async onApplicationShutdown(): Promise<void> {
    await shutdownTracing();
    await this.nc.drain().catch(() => undefined);
    // the pool closes with the DataSource (TypeOrmModule destroys it at shutdown)
  }
}
