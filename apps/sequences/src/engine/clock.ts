import { EngineRepository } from './engine.repository';

/** The engine's time: the wall clock, or (SEQUENCES_TEST_CLOCK=on) the wall clock plus the test offset. */
export class EngineClock {
  private offsetMs = 0;

  constructor(private readonly engine: EngineRepository, private readonly movable: boolean) {}

  async refresh(): Promise<void> {
    if (!this.movable) return;
    this.offsetMs = await this.engine.testClockOffsetMs();
  }

  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }
}
