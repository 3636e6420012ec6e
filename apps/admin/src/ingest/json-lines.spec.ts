import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { EntityInput } from '@app/contracts';
import { ingestLines } from '../commands/search';
import { jsonLines } from './json-lines';

const author = (i: number) => JSON.stringify({ id: `https://openalex.org/A${i}`, display_name: `Person ${i}`, works_count: i });

describe('JSON Lines ingest', () => {
  const dir = mkdtempSync(join(tmpdir(), 'json-lines-'));

  it('reads a gzipped file line by line, skipping blank lines, with the part of the file read', async () => {
    const file = join(dir, 'a.jsonl.gz');
    writeFileSync(file, gzipSync(`${author(1)}\n\n${author(2)}\r\n${author(3)}`));
    const seen = [];
    for await (const entry of jsonLines(file)) seen.push(entry);
    expect(seen.map((e) => [e.line, (e.doc as { id: string }).id])).toEqual([[1, 'https://openalex.org/A1'], [3, 'https://openalex.org/A2'], [4, 'https://openalex.org/A3']]);
    expect(seen[seen.length - 1].read).toBe(1);
  });

  it('sends every record once, in file order, reading on only while fewer than SEED_PARALLEL batches are unanswered', async () => {
    const file = join(dir, 'b.ndjson');
    writeFileSync(file, Array.from({ length: 4500 }, (_, i) => author(i)).join('\n'));
    const started: Array<{ at: number; keys: string[] }> = [];
    const held: Array<() => void> = [];
    const send = (entities: EntityInput[], at: number) =>
      new Promise<void>((resolve) => {
        started.push({ at, keys: entities.map((e) => e.ext_key) });
        held.push(resolve);
      });
    const until = async (done: () => boolean) => {
      for (let waited = 0; !done(); waited += 10) {
        if (waited > 5000) throw new Error('waited 5 s');
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    };
    let answer: number | undefined;
    const run = ingestLines('openalex', file, 2, send).then((records) => (answer = records));
    await until(() => started.length === 2);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(started.map((b) => b.at)).toEqual([0, 1000]);
    held.shift()!();
    await until(() => started.length === 3);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(started.map((b) => b.at)).toEqual([0, 1000, 2000]);
    while (answer === undefined) {
      held.splice(0).forEach((release) => release());
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await run;
    expect(answer).toBe(4500);
    expect(started.map((b) => b.at)).toEqual([0, 1000, 2000, 3000, 4000]);
    expect(started.flatMap((b) => b.keys)).toEqual(Array.from({ length: 4500 }, (_, i) => `openalex:A${i}`));
  });

  it('a batch that fails stops the reading: the failure is the answer, after the batches in flight', async () => {
    const file = join(dir, 'c.jsonl');
    writeFileSync(file, Array.from({ length: 5000 }, (_, i) => author(i)).join('\n'));
    const sent: number[] = [];
    const send = async (_entities: EntityInput[], at: number) => {
      sent.push(at);
      if (at === 1000) throw new Error('search refused');
      await new Promise((resolve) => setTimeout(resolve, 5));
    };
    await expect(ingestLines('openalex', file, 2, send)).rejects.toThrow('search refused');
    expect(sent.length).toBeLessThan(5);
  });
});
