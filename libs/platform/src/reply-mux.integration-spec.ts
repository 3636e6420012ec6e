import { connect, NatsConnection } from '@nats-io/transport-node';
import { TestMesh } from '../../../test/harness';
import { NatsRpcServer } from './nats-rpc.server';
import { askService, NoRespondersError, ReplyMux, ReplyTimeoutError } from './reply-mux';
import { allowance } from '../../../test/support/timing';

/** The reply multiplexer against a real nats-server (the test mesh's own, no services). */
describe('ReplyMux', () => {
  let mesh: TestMesh;
  let client: NatsConnection;
  let server: NatsConnection;

  beforeAll(async () => {
    mesh = await TestMesh.start([]);
    client = await connect(mesh.probeOptions());
    server = await connect(mesh.probeOptions());
    // echoes the request upper-cased after the delay it names (ms); "never" is never answered
    server.subscribe('echo', {
      callback: (_err, msg) => {
        const text = msg.string();
        if (text === 'never') return;
        setTimeout(() => msg.respond(text.toUpperCase()), Number(text.split(':')[1] ?? 0));
      },
    });
    await server.flush();
  });

  afterAll(async () => {
    await client?.close();
    await server?.close();
    await mesh?.close();
  });

  it('matches concurrent replies to their requests, whatever order they come back in', async () => {
    const mux = ReplyMux.of(client);
    expect(ReplyMux.of(client)).toBe(mux);
    const asked = Array.from({ length: 50 }, (_, i) => `r${i}:${(50 - i) % 7}`);
    const replies = await Promise.all(asked.map((text) => mux.request('echo', text, 2000)));
    expect(replies.map((msg) => msg.string())).toEqual(asked.map((text) => text.toUpperCase()));
  });

  it('fails at once with NoRespondersError when nothing serves the subject', async () => {
    const started = Date.now();
    await expect(ReplyMux.of(client).request('nobody.serves.this', 'x', 5000)).rejects.toBeInstanceOf(NoRespondersError);
    expect(Date.now() - started).toBeLessThan(allowance(1000));
  });

  it('fails a request that has no answer by its deadline, and ignores an answer that comes later', async () => {
    const mux = ReplyMux.of(client);
    const started = Date.now();
    const never = mux.request('echo', 'never', 200);
    await expect(never).rejects.toBeInstanceOf(ReplyTimeoutError);
    const waited = Date.now() - started;
    expect(waited).toBeGreaterThanOrEqual(195);
    expect(waited).toBeLessThan(200 + allowance(800));
    // answered after its 100 ms deadline: rejected once, the late reply dropped, the next request unaffected
    await expect(mux.request('echo', 'late:400', 100)).rejects.toBeInstanceOf(ReplyTimeoutError);
    await new Promise((r) => setTimeout(r, 400));
    await expect(mux.request('echo', 'next:0', 1000).then((msg) => msg.string())).resolves.toBe('NEXT:0');
  });

  it('fails the requests still waiting when the connection closes', async () => {
    const own = await connect(mesh.probeOptions());
    const waiting = ReplyMux.of(own).request('echo', 'never', 10_000);
    await own.close();
    await expect(waiting).rejects.toThrow(/connection closed/);
  });

  it("a service's request-reply server reports started only once nats-server routes its subjects to it", async () => {
    // without waiting for nats-server (a flush after the SUBs), a request sent the moment it
    // reports started could find no subscriber ("no responders")
    for (let round = 0; round < 5; round++) {
      const subject = `started.check.${round}`;
      const service = new NatsRpcServer({ connection: mesh.probeOptions(), queue: 'started-check' });
      service.addHandler(subject, async (data: unknown) => ({ echoed: data }), false);
      try {
        const answer = await new Promise<unknown>((resolve, reject) => {
          service.listen((err?: unknown) => (err ? reject(err) : askService(client, subject, { ctx: {}, body: round } as never, 2000).then(resolve, reject)));
        });
        expect(answer).toMatchObject({ response: { echoed: { ctx: {}, body: round } } });
      } finally {
        await service.close();
      }
    }
  });
});
