/** One Server-Sent Event of `GET /events/stream`: the event's id and its envelope as sent (JSON text). */
export interface StreamedEvent {
  id: string;
  /** The envelope exactly as `GET /events/{id}` answers it: forward these bytes, parse them to read the event. */
  data: string;
}

/**
 * The events of a `text/event-stream` body, as the WHATWG rules parse it: `id` and `data` fields,
 * a blank line dispatches, lines starting with `:` are comments. Yields each event as its blank
 * line arrives; ends with the body.
 */
export async function* parseEventStream(body: AsyncIterable<Uint8Array>): AsyncGenerator<StreamedEvent, void, undefined> {
  const decoder = new TextDecoder();
  let buffer = '';
  let lastId = '';
  let data: string[] = [];
  /** One line: the event it completes, if it is the blank line after one. */
  const take = (line: string): StreamedEvent | undefined => {
    if (line === '') {
      const event = data.length > 0 ? { id: lastId, data: data.join('\n') } : undefined;
      data = [];
      return event;
    }
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'data') data.push(value);
    else if (field === 'id' && !value.includes('\0')) lastId = value;
    return undefined;
  };
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    let newline: number;
    while ((newline = buffer.search(/\r\n|\r|\n/)) >= 0) {
      // a CR that ends the chunk may be the first half of a CRLF: the next chunk tells
      if (buffer[newline] === '\r' && newline === buffer.length - 1) break;
      const event = take(buffer.slice(0, newline));
      buffer = buffer.slice(newline + (buffer.startsWith('\r\n', newline) ? 2 : 1));
      if (event) yield event;
    }
  }
  // the body ended: a CR held back was a line end after all
  if (buffer.endsWith('\r')) {
    const event = take(buffer.slice(0, -1));
    if (event) yield event;
  }
}
