import { parseEventStream, StreamedEvent } from '../src';

async function* chunks(...parts: string[]): AsyncGenerator<Uint8Array> {
  for (const part of parts) yield new TextEncoder().encode(part);
}
async function all(...parts: string[]): Promise<StreamedEvent[]> {
  const events: StreamedEvent[] = [];
  for await (const event of parseEventStream(chunks(...parts))) events.push(event);
  return events;
}

describe('parseEventStream (text/event-stream, the WHATWG rules)', () => {
  it('an event per blank line, its id and data; comments and a retry field are skipped', async () => {
    expect(await all(': events of ws_1\nretry: 1000\n\nid: evt_1\ndata: {"a":1}\n\n: keep-alive\n\nid: evt_2\ndata: {"b":2}\n\n')).toEqual([
      { id: 'evt_1', data: '{"a":1}' },
      { id: 'evt_2', data: '{"b":2}' },
    ]);
  });

  it('fields split across chunks anywhere, CRLF and CR line ends, a CRLF split between two chunks', async () => {
    expect(await all('id: ev', 't_1\r', '\ndata: {"a"', ':1}\r\n\r', '\nid: evt_2\rdata: x\r\r')).toEqual([
      { id: 'evt_1', data: '{"a":1}' },
      { id: 'evt_2', data: 'x' },
    ]);
  });

  it('several data lines join with a newline; the id carries over to an event without one; an event not ended by a blank line is not dispatched', async () => {
    expect(await all('id: evt_1\ndata: one\ndata: two\n\ndata:three\n\ndata: unfinished\n')).toEqual([
      { id: 'evt_1', data: 'one\ntwo' },
      { id: 'evt_1', data: 'three' },
    ]);
  });
});
