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
