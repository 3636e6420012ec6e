/**
 * Runs `task` every `everyMs` (not overlapping itself, never keeping the process alive);
 * failures are left for the next run. Returns the function that stops it.
 */
export function runPeriodically(task: () => Promise<unknown>, everyMs: number): () => void {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    task()
      .catch(() => undefined)
      .finally(() => {
        running = false;
      });
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}

/** A pause that `wake()` ends early (a stop, a notification): one pause at a time. */
export class WakeablePause {
  private wakeUp?: () => void;

  /** Resolves after `ms`, or at once when woken meanwhile. */
  wait(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => this.end(resolve), ms);
      this.wakeUp = () => {
        clearTimeout(timer);
        this.end(resolve);
      };
    });
  }

  /** Ends the pause in progress, if any. */
  wake(): void {
    this.wakeUp?.();
  }

  private end(resolve: () => void): void {
    this.wakeUp = undefined;
    resolve();
  }
}
