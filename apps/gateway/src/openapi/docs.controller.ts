import { readFileSync } from 'node:fs';
import { Controller, Get, Header } from '@nestjs/common';
import { Public } from '../http/public.decorator';
import { docsPage } from './docs-page';
import { errorCataloguePage } from './error-catalogue';
import { HTML_PAGE, Operation } from './operation.decorator';
import { postmanCollection } from './postman';
import { RouteCatalog } from './route-catalog';

/**
 * The reference page runs only the renderer this gateway serves ('self': no inline script).
 * Redoc's styles are inserted by its script (styled-components), hence 'unsafe-inline' styles, and
 * its search index runs in a worker it makes from a blob: URL, hence `worker-src blob:`.
 */
const REFERENCE_PAGE_POLICY = "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; worker-src blob:; connect-src 'self'; img-src 'self' data:";
/** The error catalogue is HTML and inline styles, nothing else. */
const CATALOGUE_PAGE_POLICY = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:";

/**
 * The API's own documentation, served without an API key (`@Public()`): the OpenAPI 3.1
 * document generated from every controller this gateway runs,
 * the reference page rendering it (Redoc, served from here too), and the error catalogue
 * `error.doc_url` links.
 */
@Controller('api/v1')
export class DocsController {
  private errors?: string;
  private postman?: string;
  private redoc?: Buffer;

  constructor(private readonly catalog: RouteCatalog) {}

  @Get('openapi.json')
  @Public()
  @Operation({
    summary: 'This OpenAPI document',
    description: 'Generated from the gateway\'s code. No API key needed.',
    response: 'file',
    errors: [429, 500],
    media: { 'application/json': { schema: { type: 'object', description: 'An OpenAPI 3.1 document.', additionalProperties: true } } },
  })
  @Header('Content-Type', 'application/json; charset=utf-8')
  @Header('Cache-Control', 'public, max-age=300')
  openapi(): string {
    return this.catalog.documentJson();
  }

  @Get('postman_collection.json')
  @Public()
  @Operation({
    summary: 'This document as a Postman collection',
    description: 'A Postman collection (v2.1) generated from this document: a folder per tag, a request per operation with its recorded example. Import it by URL, then set the `apiKey` variable. No API key needed.',
    response: 'file',
    errors: [429, 500],
    media: { 'application/json': { schema: { type: 'object', description: 'A Postman collection, format v2.1.0.', additionalProperties: true } } },
  })
  @Header('Content-Type', 'application/json; charset=utf-8')
  @Header('Cache-Control', 'public, max-age=300')
  postmanCollection(): string {
    this.postman ??= `${JSON.stringify(postmanCollection(JSON.parse(this.catalog.documentJson())), null, 2)}\n`;
    return this.postman;
  }

  @Get('docs')
  @Public()
  @Operation({
    summary: 'Interactive API reference',
    description: 'This document rendered by Redoc: search, every operation with its recorded example and code samples (curl, the TypeScript client), the webhook events. No API key needed.',
    response: 'file',
    errors: [429, 500],
    media: HTML_PAGE,
  })
  @Header('Content-Type', 'text/html; charset=utf-8')
  @Header('Cache-Control', 'public, max-age=300')
  @Header('Content-Security-Policy', REFERENCE_PAGE_POLICY)
  page(): string {
    return docsPage('openapi.json');
  }

  /**
   * Served from the installed package, so the page loads nothing from another origin. Resolved by
   * its path, so the gateway's image holds the package alone (tools/image/deps.ts).
   */
  @Get('docs/redoc.standalone.js')
  @Public()
  @Operation({
    summary: 'The reference page\'s renderer',
    description: 'Redoc\'s standalone script, the version this gateway installs. No API key needed.',
    response: 'file',
    errors: [429, 500],
    media: { 'text/javascript': { schema: { type: 'string' } } },
  })
  @Header('Content-Type', 'text/javascript; charset=utf-8')
  @Header('Cache-Control', 'public, max-age=3600')
  @Header('X-Content-Type-Options', 'nosniff')
  renderer(): Buffer {
    this.redoc ??= readFileSync(require.resolve('redoc/bundles/redoc.standalone.js'));
    return this.redoc;
  }

  /** One anchor per error code (`#not_found`): what it means, what to do, whether to retry. */
  @Get('docs/errors')
  @Public()
  @Operation({
    summary: 'Error catalogue',
    description: 'One section per error code, anchored by the code (`#not_found`): what it means, what to do, whether to retry. `error.doc_url` links here. No API key needed.',
    response: 'file',
    errors: [429, 500],
    media: HTML_PAGE,
  })
  @Header('Content-Type', 'text/html; charset=utf-8')
  @Header('Cache-Control', 'public, max-age=300')
  @Header('Content-Security-Policy', CATALOGUE_PAGE_POLICY)
  errorCodes(): string {
    this.errors ??= errorCataloguePage();
    return this.errors;
  }
}
