import { Controller, Get, Inject } from '@nestjs/common';
import { HealthCheck, HealthCheckService, HealthIndicatorService } from '@nestjs/terminus';
import { NatsConnection } from '@nats-io/transport-node';
import { Pool } from 'pg';
import { DatabaseState, withDeadline } from './database-watch';
import { NATS_CONNECTION, PG_POOL } from './tokens';
import { WarmUpState } from './warm-up';

/**
 * Liveness: the process answers. Readiness: it has warmed up (warm-up.ts), and its database and NATS answer.
 * Not in the API's document (the probes are the platform's, not the public API's), so terminus's
 * swagger decorators are off: with them on, `@HealthCheck` loads @nestjs/swagger into every service.
 */
const PROBE = { noCache: true, swaggerDocumentation: false } as const;

@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    private readonly warmUp: WarmUpState,
    private readonly databaseState: DatabaseState,
  ) {}

  @Get('live')
  @HealthCheck(PROBE)
  live() {
    return this.health.check([]);
  }

  @Get('ready')
  @HealthCheck(PROBE)
  ready() {
    return this.health.check([() => this.warmedUp(), () => this.database(), () => this.nats()]);
  }

  private warmedUp() {
    const check = this.indicators.check('warm_up');
    return this.warmUp.done ? check.up() : check.down({ message: 'warming up: not yet in its queue groups' });
  }

  /**
   * The DatabaseWatch's judgment once it runs (DatabaseState: a saturated pool is busy, not lost);
   * before it (the warm-up, which holds readiness down anyway) or in a process without one, a query.
   */
  private async database() {
    const check = this.indicators.check('database');
    if (this.databaseState.watched) {
      return this.databaseState.up ? check.up() : check.down({ message: 'the database does not answer: out of the queue groups until it does' });
    }
    try {
      await withDeadline(this.pool.query('SELECT 1'), 1500);
      return check.up();
    } catch (err) {
      return check.down({ message: (err as Error).message });
    }
  }

  private async nats() {
    const check = this.indicators.check('nats');
    try {
      if (this.nc.isClosed()) throw new Error('connection closed');
      await withDeadline(this.nc.flush(), 1500);
      return check.up();
    } catch (err) {
      return check.down({ message: (err as Error).message });
    }
  }
}
