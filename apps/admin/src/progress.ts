/**
 * A progress line on stderr for long jobs (search:seed, ingest, bulk operations), drawn only when
 * stderr is a terminal: piped or logged, stderr stays for errors, and stdout is always the one
 * JSON object. Redrawn at most every 100 ms; the last call (done = total) ends the line.
 */
export function progress(label: string, done: number, total: number, startedAt: number): void {
  if (!process.stderr.isTTY) return;
  const now = Date.now();
  const finished = done >= total;
  if (!finished && now - lastDrawn < 100) return;
  lastDrawn = now;
  const width = 30;
  const filled = Math.min(width, Math.round((done / Math.max(total, 1)) * width));
  const seconds = Math.max((now - startedAt) / 1000, 0.001);
  const rate = done / seconds;
  const eta = finished || rate === 0 ? '' : `, ${Math.ceil((total - done) / rate)} s left`;
  process.stderr.write(`\r${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total} (${Math.round(rate)}/s${eta})\x1b[K${finished ? '\n' : ''}`);
}

let lastDrawn = 0;
