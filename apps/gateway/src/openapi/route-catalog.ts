import { Inject, Injectable } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import { SERVICE_CONFIG } from '@app/platform';
import { GatewayConfig } from '../config';
import { buildOpenApiDocument, toOpenApiPath } from './generator';

/** The query parameters one route takes; `objects` are the deepObject ones (`filters[key]=…`). */
export interface QueryParameters {
  names: Set<string>;
  objects: Set<string>;
}

interface OpenApiParameter {
  name?: string;
  in?: string;
  style?: string;
}

/**
 * The routes this gateway serves, as its OpenAPI document describes them (generated once from
 * every controller Nest registered). The document is what clients read, so what the pipeline
 * enforces from it (the query parameters a route takes) is exactly what is documented.
 */
@Injectable()
export class RouteCatalog {
  private built?: { document: Record<string, unknown>; json: string; queries: Map<string, QueryParameters> };
  /** The same, by the Fastify form of the route as the pipeline sees it (one look-up per request). */
  private readonly byRoute = new Map<string, QueryParameters | undefined>();

  constructor(
    private readonly modules: ModulesContainer,
    @Inject(SERVICE_CONFIG) private readonly config: GatewayConfig,
  ) {}

  /** The OpenAPI 3.1 document, serialized. */
  documentJson(): string {
    return this.build().json;
  }

  /** Query parameters of a route, by method and its Fastify path (`/api/v1/leads/:id`); undefined for routes not documented. */
  queryParameters(method: string, routeUrl: string): QueryParameters | undefined {
    const route = `${method} ${routeUrl}`;
    if (!this.byRoute.has(route)) {
      this.byRoute.set(route, this.build().queries.get(`${method === 'HEAD' ? 'get' : method.toLowerCase()} ${toOpenApiPath(routeUrl)}`));
    }
    return this.byRoute.get(route);
  }

  private build() {
    if (this.built) return this.built;
    const document = buildOpenApiDocument(this.controllers(), { docsUrl: this.config.docsUrl });
    const queries = new Map<string, QueryParameters>();
    for (const [path, operations] of Object.entries(document.paths as Record<string, Record<string, { parameters?: OpenApiParameter[] }>>)) {
      for (const [method, operation] of Object.entries(operations)) {
        const query = (operation.parameters ?? []).filter((p) => p.in === 'query' && p.name);
        queries.set(`${method} ${path}`, {
          names: new Set(query.map((p) => p.name as string)),
          objects: new Set(query.filter((p) => p.style === 'deepObject').map((p) => p.name as string)),
        });
      }
    }
    this.built = { document, json: JSON.stringify(document), queries };
    return this.built;
  }

  /** Every controller class of every module of this application, as Nest registered them. */
  private controllers(): Function[] {
    const found = new Set<Function>();
    for (const module of this.modules.values()) {
      for (const wrapper of module.controllers.values()) if (typeof wrapper.metatype === 'function') found.add(wrapper.metatype);
    }
    return [...found];
  }
}
