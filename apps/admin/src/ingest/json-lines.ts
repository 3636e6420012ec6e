import { createReadStream, statSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { createGunzip } from 'node:zlib';

/** A file `ingest` reads line by line instead of whole: JSON Lines (`.jsonl`, `.ndjson`), gzipped or not. */
export const JSON_LINES_FILE = /\.(jsonl|ndjson)(\.gz)?$/i;

/** One document of a JSON Lines file, with how far into the file (on disk) the reading has come. */
export interface JsonLine {
  line: number;
  doc: unknown;
  /** Bytes of the file read so far over its size: 0..1. */
  read: number;
}

/**
 * The documents of a JSON Lines file, one at a time: the file is streamed (gunzipped on the way
 * when it ends in `.gz`), so its size does not bound what one ingest reads. A line that is not
 * JSON throws, naming its number; blank lines are skipped.
 */
export async function* jsonLines(path: string): AsyncGenerator<JsonLine> {
  const size = Math.max(statSync(path).size, 1);
  const file = createReadStream(path);
  const text = /\.gz$/i.test(path) ? file.pipe(createGunzip()) : file;
  file.on('error', (err) => text.destroy(err));
  const lines = createInterface({ input: text, crlfDelay: Infinity });
  let line = 0;
  try {
    for await (const raw of lines) {
      line++;
      if (raw.trim() === '') continue;
      let doc: unknown;
      try {
        doc = JSON.parse(raw);
      } catch (err) {
        throw new Error(`line ${line}: not JSON (${(err as Error).message})`);
      }
      yield { line, doc, read: Math.min(file.bytesRead / size, 1) };
    }
  } finally {
    lines.close();
    file.destroy();
  }
}
