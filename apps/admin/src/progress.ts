/**
 * A progress line on stderr for long jobs (search:seed, ingest, bulk operations). On a terminal it
 * is one line redrawn at most every 100 ms. Piped or logged, stderr stays for errors unless
 * ADMIN_PROGRESS=1 asks for progress there too: then one whole line at most every 5 s (a log
 * keeps every line) and one at the end. stdout is always the one JSON object.
 */
export function progress(label: string, done: number, total: number, startedAt: number): void {
  const terminal = process.stderr.isTTY;
  if (!terminal && process.env.ADMIN_PROGRESS !== '1') return;
  const now = Date.now();
  const finished = done >= total;
  if (!finished && now - lastDrawn < (terminal ? 100 : 5000)) return;
  lastDrawn = now;
  const width = 30;
  const filled = Math.min(width, Math.round((done / Math.max(total, 1)) * width));
  const seconds = Math.max((now - startedAt) / 1000, 0.001);
  const rate = done / seconds;
  const eta = finished || rate === 0 ? '' : `, ${Math.ceil((total - done) / rate)} s left`;
  const line = `${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total} (${Math.round(rate)}/s${eta})`;
  process.stderr.write(terminal ? `\r${line}\x1b[K${finished ? '\n' : ''}` : `${line}\n`);
}

let lastDrawn = 0;
