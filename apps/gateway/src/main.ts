import 'reflect-metadata';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { ID_PREFIX } from '@app/contracts';
import { newId, runMain, startService } from '@app/platform';
import { loadGatewayConfig } from './config';
import { GatewayModule } from './gateway.module';
import { clientErrorHandler, frameworkErrorHandler } from './http/error-filter';
import { GatewayPipeline } from './http/pipeline';
import { routableUrl } from './http/routable-url';
import { GATEWAY_MIGRATIONS } from './migrations';
import { installRouteRecorder } from './openapi/route-recorder';
import { EventStreams } from './webhooks/event-streams';
import { GATEWAY_WARM_UP } from './warm-up';

runMain(() => {
  const config = loadGatewayConfig();
  const adapter = new FastifyAdapter({
    genReqId: () => newId(ID_PREFIX.request),
    bodyLimit: config.bodyLimitBytes,
    trustProxy: config.trustProxy,
    // ids are up to 255 characters: longer path ids reach the controllers, which answer 404
    // (a router option: given at the top level, Fastify 5 prints a deprecation warning, FSTDEP022)
    routerOptions: { maxParamLength: 512 },
    frameworkErrors: frameworkErrorHandler(config.docsUrl),
    clientErrorHandler: clientErrorHandler(config.docsUrl, () => newId(ID_PREFIX.request)),
    rewriteUrl: (request: { url?: string }) => routableUrl(request.url ?? '/'),
    // a request that arrives on an open keep-alive connection while the gateway drains (SIGTERM)
    // is served (the drain waits for it; the answer closes the connection), not refused with
    // Fastify's 503, which is not the API's error object and which a client would have to retry
    return503OnClosing: false,
  });
  return startService({
    config,
    module: GatewayModule.register(config),
    migrations: GATEWAY_MIGRATIONS,
    bodyParser: false,
    warmUp: GATEWAY_WARM_UP,
    adapter,
    configure: (app) => {
      installRouteRecorder(app.getHttpAdapter().getInstance(), config.routeLog);
      app.get(GatewayPipeline).install(app.getHttpAdapter().getInstance());
      app.get(EventStreams).install(app.getHttpAdapter().getInstance());
    },
  });
});
