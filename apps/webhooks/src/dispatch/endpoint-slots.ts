/** A due delivery as the claim's first read sees it. */
export interface Candidate {
  id: string;
  endpoint_id: string;
}

/**
 * This process's attempt slots: at most `total` attempts at once, and at most `perEndpoint` to
 * one endpoint, so one slow receiver cannot take every slot. An attempt holds two slots with
 * different ends: the endpoint's is free once the receiver has answered, the process's once the
 * outcome is committed (which bounds the outcomes waiting for the database).
 */
export class EndpointSlots {
  private used = 0;
  private readonly byEndpoint = new Map<string, number>();
  private readonly idle = new Set<() => void>();

  constructor(
    private readonly total: number,
    private readonly perEndpoint: number,
    /** Called whenever a slot is freed: the owner claims more. */
    private readonly onFree: () => void = () => undefined,
  ) {}

  /** Slots of the process not in use. */
  get free(): number {
    return this.total - this.used;
  }

  /** Endpoints with no slot left: the claim does not read their deliveries. */
  saturated(): string[] {
    return [...this.byEndpoint].filter(([, n]) => n >= this.perEndpoint).map(([id]) => id);
  }

  /** Both slots of one attempt to the endpoint, if there is room for it. */
  tryTake(endpointId: string): boolean {
    if (this.used >= this.total) return false;
    if ((this.byEndpoint.get(endpointId) ?? 0) >= this.perEndpoint) return false;
    this.take(endpointId);
    return true;
  }

  /**
   * The candidates there is room for now, at most `limit`, each endpoint's at most its free
   * slots, in the candidates' order; their slots are taken.
   */
  takeFor<T extends Candidate>(candidates: T[], limit: number): T[] {
    const cap = Math.min(limit, this.free);
    const room = new Map<string, number>();
    const picked: T[] = [];
    for (const c of candidates) {
      const left = room.get(c.endpoint_id) ?? this.perEndpoint - (this.byEndpoint.get(c.endpoint_id) ?? 0);
      if (left <= 0 || picked.length >= cap) continue;
      room.set(c.endpoint_id, left - 1);
      picked.push(c);
    }
    for (const c of picked) this.take(c.endpoint_id);
    return picked;
  }

  /** The endpoint's slot, once the receiver has answered (or the attempt ended without an answer). */
  freeEndpoint(endpointId: string): void {
    const n = (this.byEndpoint.get(endpointId) ?? 1) - 1;
    if (n <= 0) this.byEndpoint.delete(endpointId);
    else this.byEndpoint.set(endpointId, n);
    this.onFree();
  }

  /** The process's slot, once the attempt's outcome is committed. */
  freeTotal(): void {
    this.used--;
    if (this.used === 0) for (const resolve of this.idle) resolve();
    this.onFree();
  }

  /** Both slots of an attempt that is not made after all. */
  release(endpointId: string): void {
    this.freeEndpoint(endpointId);
    this.freeTotal();
  }

  /** Resolves when no slot of the process is in use. */
  whenIdle(): Promise<void> {
    if (this.used === 0) return Promise.resolve();
    return new Promise<void>((resolve) => this.idle.add(resolve));
  }

  private take(endpointId: string): void {
    this.used++;
    this.byEndpoint.set(endpointId, (this.byEndpoint.get(endpointId) ?? 0) + 1);
  }
}
