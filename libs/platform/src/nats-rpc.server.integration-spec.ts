import {
  CanActivate, Catch, Controller, ExceptionFilter, ExecutionContext, INestApplication, Module, PipeTransform, UseGuards, UseInterceptors, UsePipes,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { NatsConnection } from '@nats-io/transport-node';
import { map, Observable, of, throwError } from 'rxjs';
import { RequestContext } from '@app/contracts';
import { TestMesh } from '../../../test/harness';
import { DomainError } from './domain-error';
import { connectMesh } from './nats';
import { NatsRpcServer } from './nats-rpc.server';
import { askService, JsonText, RawJson, ReplyPacket } from './reply-mux';
import { PublicRpc, Rpc } from './rpc-context';

class Refuse implements CanActivate {
  canActivate(): boolean {
    return false;
  }
}

class Double {
  intercept(_context: unknown, next: { handle(): Observable<unknown> }): Observable<unknown> {
    return next.handle().pipe(map((value) => ({ doubled: value })));
  }
}

/** Lets a request of workspace ws_1 through: a guard sees the request's envelope. */
class OnlyWs1 implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    return context.switchToRpc().getData<{ ctx?: RequestContext }>()?.ctx?.workspace_id === 'ws_1';
  }
}

/** Multiplies a body's `n` by ten (and leaves the context alone). */
class TenTimes implements PipeTransform {
  transform(value: unknown): unknown {
    return value && typeof value === 'object' && 'n' in value ? { ...value, n: (value as { n: number }).n * 10 } : value;
  }
}

@Controller()
class PlainController {
  @Rpc('direct.sync')
  sync(ctx: RequestContext, body: { n: number }) {
    return { workspace: ctx.workspace_id, n: body.n + 1 };
  }

  @Rpc('direct.async')
  async later(ctx: RequestContext, body: { n: number }) {
    await new Promise((resolve) => setTimeout(resolve, 5));
    return { n: body.n * 2 };
  }

  @Rpc('direct.domain')
  async domain(): Promise<never> {
    await Promise.resolve();
    throw DomainError.notFound('lead', 'lead_x', 'id');
  }

  @Rpc('direct.throws')
  throws(): never {
    throw new Error('a bug with internals in its message');
  }

  @Rpc('direct.rejects')
  async rejects(): Promise<never> {
    await Promise.resolve();
    throw new TypeError('cannot read properties of undefined');
  }

  /** A value given as JSON text (JsonText): sent as written, spacing included. */
  @Rpc('direct.text')
  text(ctx: RequestContext) {
    return new JsonText(`{"workspace":${JSON.stringify(ctx.workspace_id)},"details": {"a": [1, 2]}}`);
  }

  @Rpc('direct.stream')
  stream() {
    return of({ streamed: true });
  }

  @Rpc('direct.stream-error')
  streamError() {
    return throwError(() => new DomainError('conflict', 'from a stream'));
  }

  /** A statement whose database connection broke under it (pg's message; connectionBroke). */
  @Rpc('direct.lost')
  async lost(): Promise<never> {
    await Promise.resolve();
    throw new Error('Connection terminated unexpectedly');
  }

  @PublicRpc('direct.public.lost')
  publicLost(): never {
    throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
  }

  @PublicRpc('direct.public')
  open(ctx: Partial<RequestContext>, body: unknown) {
    return { ctx, body: body ?? null };
  }

  @UseGuards(Refuse)
  @Rpc('guarded.method')
  guarded() {
    return { reached: true };
  }
}

/** Every enhancer declared on an @Rpc handler runs, written above @Rpc or below it. */
@Controller()
class EnhancedController {
  @UseGuards(Refuse)
  @Rpc('guard.above')
  guardAbove() {
    return { reached: true };
  }

  @Rpc('guard.below')
  @UseGuards(Refuse)
  guardBelow() {
    return { reached: true };
  }

  @Rpc('guard.below.passes')
  @UseGuards(OnlyWs1)
  guardPasses(ctx: RequestContext) {
    return { reached: ctx.workspace_id };
  }

  @UseInterceptors(Double)
  @Rpc('interceptor.above')
  interceptedAbove() {
    return 1;
  }

  @Rpc('interceptor.below')
  @UseInterceptors(Double)
  interceptedBelow() {
    return 2;
  }

  @UsePipes(TenTimes)
  @Rpc('pipe.above')
  pipedAbove(_ctx: RequestContext, body: { n: number }) {
    return body.n;
  }

  @Rpc('pipe.below')
  @UsePipes(TenTimes)
  pipedBelow(_ctx: RequestContext, body: { n: number }) {
    return body.n;
  }
}

@UseInterceptors(Double)
@Controller()
class InterceptedController {
  @Rpc('intercepted.class')
  value() {
    return 21;
  }
}

@Module({ controllers: [PlainController, InterceptedController, EnhancedController] })
class RpcModule {}

@Catch()
class Everything implements ExceptionFilter {
  catch() {
    return throwError(() => ({ code: 'caught' }));
  }
}

/**
 * The services' request-reply server (NatsRpcServer, a Nest custom transport strategy) against a
 * real nats-server: every @Rpc and @PublicRpc handler goes through Nest's pipeline, so what it
 * answers is what Nest answers (values, domain errors, failures without internals, streams), and
 * the guards, interceptors, pipes and filters declared on a handler, its controller or the app
 * run, whichever side of @Rpc they are written on.
 */
describe('NatsRpcServer', () => {
  let mesh: TestMesh;
  let client: NatsConnection;
  const ws1 = { ctx: { workspace_id: 'ws_1' }, body: {} };
  const requests: [string, unknown][] = [
    ['direct.sync', { ctx: { workspace_id: 'ws_1', request_id: 'req_1' }, body: { n: 1 } }],
    ['direct.async', { ctx: { workspace_id: 'ws_1' }, body: { n: 4 } }],
    ['direct.domain', ws1],
    ['direct.throws', ws1],
    ['direct.rejects', ws1],
    ['direct.stream', ws1],
    ['direct.stream-error', ws1],
    // no context: @Rpc refuses it (unpack), @PublicRpc takes it
    ['direct.sync', { body: { n: 1 } }],
    ['direct.public', { ctx: { request_id: 'req_2' } }],
    ['guarded.method', ws1],
    ['intercepted.class', ws1],
  ];

  beforeAll(async () => {
    mesh = await TestMesh.start([]);
    client = await connectMesh(mesh.probeOptions());
  });

  afterAll(async () => {
    await client?.close();
    await mesh?.close();
  });

  /** Serves the module on nats-server and asks each request once. */
  async function answers(asked: [string, unknown][], configure?: (app: INestApplication) => void): Promise<ReplyPacket<unknown>[]> {
    const app = await NestFactory.create(RpcModule, new FastifyAdapter(), { logger: false });
    configure?.(app);
    app.connectMicroservice({ strategy: new NatsRpcServer({ connection: mesh.probeOptions(), queue: 'rpc-check' }) }, { inheritAppConfig: true });
    await app.startAllMicroservices();
    try {
      const replies: ReplyPacket<unknown>[] = [];
      for (const [subject, data] of asked) {
        // (the packet's id is the request's own, a random token)
        const { id, ...reply } = (await askService(client, subject, data as never, 5000)) as ReplyPacket<unknown> & { id?: string };
        expect(typeof id).toBe('string');
        replies.push(reply);
      }
      return replies;
    } finally {
      await app.close();
    }
  }

  it('answers what Nest answers: values, domain errors, failures without internals, streams', async () => {
    expect(await answers(requests)).toEqual([
      { response: { workspace: 'ws_1', n: 2 }, isDisposed: true },
      { response: { n: 8 }, isDisposed: true },
      { err: { code: 'not_found', message: "No such lead: 'lead_x'", param: 'id' }, isDisposed: true },
      { err: { status: 'error', message: 'Internal server error' }, isDisposed: true },
      { err: { status: 'error', message: 'Internal server error' }, isDisposed: true },
      { response: { streamed: true }, isDisposed: true },
      { err: { code: 'conflict', message: 'from a stream' }, isDisposed: true },
      { err: { code: 'internal_error', message: 'request without context' }, isDisposed: true },
      { response: { ctx: { request_id: 'req_2' }, body: null }, isDisposed: true },
      { err: { status: 'error', message: 'Forbidden resource' }, isDisposed: true },
      { response: { doubled: 21 }, isDisposed: true },
    ]);
  });

  it('runs the guards, interceptors and pipes of an @Rpc handler written above or below it', async () => {
    const replies = await answers([
      ['guard.above', ws1],
      ['guard.below', ws1],
      ['guard.below.passes', ws1],
      ['guard.below.passes', { ctx: { workspace_id: 'ws_2' }, body: {} }],
      ['interceptor.above', ws1],
      ['interceptor.below', ws1],
      ['pipe.above', { ctx: { workspace_id: 'ws_1' }, body: { n: 3 } }],
      ['pipe.below', { ctx: { workspace_id: 'ws_1' }, body: { n: 4 } }],
    ]);
    const forbidden = { err: { status: 'error', message: 'Forbidden resource' }, isDisposed: true };
    expect(replies).toEqual([
      forbidden,
      forbidden,
      { response: { reached: 'ws_1' }, isDisposed: true },
      forbidden,
      { response: { doubled: 1 }, isDisposed: true },
      { response: { doubled: 2 }, isDisposed: true },
      { response: 30, isDisposed: true },
      { response: 40, isDisposed: true },
    ]);
  });

  it("runs the app's global filter on every handler", async () => {
    const replies = await answers(requests.slice(0, 3), (app) => app.useGlobalFilters(new Everything()));
    expect(replies[2]).toMatchObject({ err: { code: 'caught' } });
    expect(replies[0]).toMatchObject({ response: { workspace: 'ws_1', n: 2 } });
  });

  it("answers a lost database connection service_unavailable, an app's global filter or not, and leaves it every other failure", async () => {
    const asked: [string, unknown][] = [['direct.lost', ws1], ['direct.public.lost', {}], ['direct.domain', ws1], ['direct.throws', ws1]];
    const unavailable = { err: { code: 'service_unavailable', message: expect.not.stringMatching(/ECONN|5432|terminat/) }, isDisposed: true };
    expect(await answers(asked)).toEqual([
      unavailable,
      unavailable,
      { err: { code: 'not_found', message: "No such lead: 'lead_x'", param: 'id' }, isDisposed: true },
      { err: { status: 'error', message: 'Internal server error' }, isDisposed: true },
    ]);
    const filtered = await answers(asked, (app) => app.useGlobalFilters(new Everything()));
    expect(filtered).toEqual([unavailable, unavailable, { err: { code: 'caught' }, isDisposed: true }, { err: { code: 'caught' }, isDisposed: true }]);
  });

  it("answers a handler's value as its JSON bytes when asked (RawJson), and an error in Nest's packet", async () => {
    const app = await NestFactory.create(RpcModule, new FastifyAdapter(), { logger: false });
    app.connectMicroservice({ strategy: new NatsRpcServer({ connection: mesh.probeOptions(), queue: 'rpc-check' }) });
    await app.startAllMicroservices();
    try {
      const value = await askService(client, 'direct.sync', { ctx: { workspace_id: 'ws_1' }, body: { n: 1 } } as never, 5000, { raw: true });
      expect(value.response).toBeInstanceOf(RawJson);
      expect((value.response as RawJson).parse()).toEqual({ workspace: 'ws_1', n: 2 });
      const failed = await askService(client, 'direct.domain', ws1 as never, 5000, { raw: true });
      expect(failed).toMatchObject({ err: { code: 'not_found' }, isDisposed: true });
      // a value given as JSON text: its very bytes when asked raw, inside Nest's packet otherwise
      const text = await askService(client, 'direct.text', ws1 as never, 5000, { raw: true });
      expect((text.response as RawJson).buffer().toString('utf8')).toBe('{"workspace":"ws_1","details": {"a": [1, 2]}}');
      expect(await askService(client, 'direct.text', ws1 as never, 5000)).toMatchObject({ response: { workspace: 'ws_1', details: { a: [1, 2] } }, isDisposed: true });
    } finally {
      await app.close();
    }
  });
});
