import { Controller, Get, Header, Inject } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import { SERVICE_CONFIG } from '@app/platform';
import { GatewayConfig } from '../config';
import { docsPage } from './docs-page';
import { buildOpenApiDocument } from './generator';

/**
 * The API's own documentation, served without an API key (the pipeline lets exactly these two
 * routes through): the OpenAPI 3.1 document generated from every controller this gateway runs,
 * and a self-contained reference page rendering it.
 */
@Controller('api/v1')
export class DocsController {
  private document?: string;

  constructor(
    private readonly modules: ModulesContainer,
    @Inject(SERVICE_CONFIG) private readonly config: GatewayConfig,
  ) {}

  @Get('openapi.json')
  @Header('Content-Type', 'application/json; charset=utf-8')
  @Header('Cache-Control', 'public, max-age=300')
  openapi(): string {
    this.document ??= JSON.stringify(buildOpenApiDocument(this.controllers(), { docsUrl: this.config.docsUrl }));
    return this.document;
  }

  @Get('docs')
  @Header('Content-Type', 'text/html; charset=utf-8')
  @Header('Cache-Control', 'public, max-age=300')
  @Header('Content-Security-Policy', "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; img-src 'self' data:")
  page(): string {
    return docsPage('openapi.json');
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
