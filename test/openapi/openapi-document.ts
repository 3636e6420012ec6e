import { GatewayConfig } from '../../apps/gateway/src/config';
import { GatewayModule } from '../../apps/gateway/src/gateway.module';
import { buildOpenApiDocument } from '../../apps/gateway/src/openapi/generator';

/** The controllers the gateway runs, as its module registers them (no database, no NATS). */
export function gatewayControllers(): Function[] {
  return (GatewayModule.register({ service: 'gateway' } as GatewayConfig).controllers ?? []) as Function[];
}

/** The document the gateway serves, built from those controllers, with error links to `docsUrl`. */
export function gatewayDocument(docsUrl = 'https://docs.leadintel.dev/api/errors'): any {
  return buildOpenApiDocument(gatewayControllers(), { docsUrl });
}
