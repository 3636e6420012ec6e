/**
 * A progress line on stderr for long jobs (search:seed, ingest, bulk operations). On a terminal it
 * is one line redrawn at most every 100 ms. Piped or logged, stderr stays for errors unless
 * ADMIN_PROGRESS=1 asks for progress there too: then one whole line at most every 5 s (a log
 * keeps every line) and one at the end. stdout is always the one JSON object.
 */
export function progress(label: string, done: number, total: number, startedAt: number): void {
  const finished = done >= total;
  draw(finished, (seconds) => {
    const rate = done / seconds;
    const eta = finished || rate === 0 ? '' : `, ${Math.ceil((total - done) / rate)} s left`;
    return `${label} ${bar(done / Math.max(total, 1))} ${done}/${total} (${Math.round(rate)}/s${eta})`;
  }, startedAt);
}

/**
 * The same line for a job whose total is not known before its end (a streamed file): the records
 * done so far and how much of the file is read, the time left estimated from the part read.
 */
export function progressOfFile(label: string, done: number, read: number, finished: boolean, startedAt: number): void {
  draw(finished, (seconds) => {
    const part = finished ? 1 : Math.min(read, 1);
    const eta = finished || part === 0 ? '' : `, ${Math.ceil((seconds * (1 - part)) / part)} s left`;
    return `${label} ${bar(part)} ${done} records, ${Math.floor(part * 100)}% of the file (${Math.round(done / seconds)}/s${eta})`;
  }, startedAt);
}

function bar(part: number): string {
  const width = 30;
  const filled = Math.min(width, Math.round(part * width));
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}]`;
}

function draw(finished: boolean, line: (seconds: number) => string, startedAt: number): void {
  const terminal = process.stderr.isTTY;
  if (!terminal && process.env.ADMIN_PROGRESS !== '1') return;
  const now = Date.now();
  if (!finished && now - lastDrawn < (terminal ? 100 : 5000)) return;
  lastDrawn = now;
  const text = line(Math.max((now - startedAt) / 1000, 0.001));
  process.stderr.write(terminal ? `\r${text}\x1b[K${finished ? '\n' : ''}` : `${text}\n`);
}

let lastDrawn = 0;
