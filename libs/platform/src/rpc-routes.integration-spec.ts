import { CanActivate, Catch, Controller, ExceptionFilter, INestApplication, Module, UseGuards, UseInterceptors } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { connect, NatsConnection } from '@nats-io/transport-node';
import { map, Observable, of, throwError } from 'rxjs';
import { RequestContext } from '@app/contracts';
import { TestMesh } from '../../../test/harness';
import { DomainError } from './domain-error';
import { CoalescingServerNats } from './nats';
import { askService, ReplyPacket } from './reply-mux';
import { PublicRpc, Rpc } from './rpc-context';
import { directRpcRoutes } from './rpc-routes';

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

  @Rpc('direct.stream')
  stream() {
    return of({ streamed: true });
  }

  @Rpc('direct.stream-error')
  streamError() {
    return throwError(() => new DomainError('conflict', 'from a stream'));
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

@UseInterceptors(Double)
@Controller()
class InterceptedController {
  @Rpc('intercepted.class')
  value() {
    return 21;
  }
}

@Module({ controllers: [PlainController, InterceptedController] })
class RpcModule {}

@Catch()
class Everything implements ExceptionFilter {
  catch() {
    return throwError(() => ({ code: 'caught' }));
  }
}

/**
 * Request-reply handlers called without Nest's pipeline (directRpcRoutes, CoalescingServerNats)
 * answer exactly what Nest's pipeline answers, value or error, and a handler that declares a
 * guard, interceptor or filter (or an app with a global one) stays on Nest's pipeline.
 */
describe('direct RPC routes', () => {
  let mesh: TestMesh;
  let client: NatsConnection;
  const requests: [string, unknown][] = [
    ['direct.sync', { ctx: { workspace_id: 'ws_1', request_id: 'req_1' }, body: { n: 1 } }],
    ['direct.async', { ctx: { workspace_id: 'ws_1' }, body: { n: 4 } }],
    ['direct.domain', { ctx: { workspace_id: 'ws_1' }, body: {} }],
    ['direct.throws', { ctx: { workspace_id: 'ws_1' }, body: {} }],
    ['direct.rejects', { ctx: { workspace_id: 'ws_1' }, body: {} }],
    ['direct.stream', { ctx: { workspace_id: 'ws_1' }, body: {} }],
    ['direct.stream-error', { ctx: { workspace_id: 'ws_1' }, body: {} }],
    // no context: @Rpc refuses it (unpack), @PublicRpc takes it
    ['direct.sync', { body: { n: 1 } }],
    ['direct.public', { ctx: { request_id: 'req_2' } }],
    ['guarded.method', { ctx: { workspace_id: 'ws_1' }, body: {} }],
    ['intercepted.class', { ctx: { workspace_id: 'ws_1' }, body: {} }],
  ];

  beforeAll(async () => {
    mesh = await TestMesh.start([]);
    client = await connect(mesh.probeOptions());
  });

  afterAll(async () => {
    await client?.close();
    await mesh?.close();
  });

  /** Serves the modules on nats-server, direct or not, and asks every request once. */
  async function answers(direct: boolean, configure?: (app: INestApplication) => void): Promise<{ routes: string[]; replies: ReplyPacket<unknown>[] }> {
    const app = await NestFactory.create(RpcModule, new FastifyAdapter(), { logger: false });
    configure?.(app);
    const server = new CoalescingServerNats({ ...mesh.probeOptions(), queue: 'direct-check' });
    app.connectMicroservice({ strategy: server }, { inheritAppConfig: true });
    const routes = directRpcRoutes(app);
    if (direct) server.useDirectRoutes(routes);
    await app.startAllMicroservices();
    try {
      const replies: ReplyPacket<unknown>[] = [];
      for (const [subject, data] of requests) {
        // (the packet's id is the request's own, a random token)
        const { id, ...reply } = (await askService(client, subject, data as never, 5000)) as ReplyPacket<unknown> & { id?: string };
        expect(typeof id).toBe('string');
        replies.push(reply);
      }
      return { routes: [...routes.keys()].sort(), replies };
    } finally {
      await app.close();
    }
  }

  it('calls the undecorated @Rpc and @PublicRpc handlers directly and answers as Nest does', async () => {
    const viaNest = await answers(false);
    const direct = await answers(true);
    expect(direct.routes).toEqual(['direct.async', 'direct.domain', 'direct.public', 'direct.rejects', 'direct.stream', 'direct.stream-error', 'direct.sync', 'direct.throws']);
    expect(direct.replies).toEqual(viaNest.replies);
    // and what Nest answers is what the mesh relies on
    expect(direct.replies).toEqual([
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

  it('leaves every handler on Nest pipeline when the app has a global filter', async () => {
    const { routes, replies } = await answers(true, (app) => app.useGlobalFilters(new Everything()));
    expect(routes).toEqual([]);
    expect(replies[2]).toMatchObject({ err: { code: 'caught' } });
    expect(replies[0]).toMatchObject({ response: { workspace: 'ws_1', n: 2 } });
  });
});
