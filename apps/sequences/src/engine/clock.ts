import { Pool } from 'pg';

/** The engine's time: the wall clock, or (SEQUENCES_TEST_CLOCK=on) the wall clock plus the test offset. */
export class EngineClock {
  private offsetMs = 0;

  constructor(private readonly pool: Pool, private readonly movable: boolean) {}

  async refresh(): Promise<void> {
    if (!this.movable) return;
    const { rows } = await this.pool.query<{ offset_ms: string }>('SELECT offset_ms FROM test_clock');
    this.offsetMs = Number(rows[0]?.offset_ms ?? 0);
  }

  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }
}
