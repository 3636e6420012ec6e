import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { Body, Controller, Delete, Get, Param, Post, Query } from '@nestjs/common';
import { ERROR_STATUS, PUBLIC_EVENT_TYPES } from '@app/contracts';
import { CreateLeadDto, CreateTaskDto, ListLeadsQueryDto } from '@app/contracts/dto';
import { dtoToJsonSchema } from '../../apps/gateway/src/openapi/dto-schema';
import { buildOpenApiDocument, discoverRoutes, toOpenApiPath } from '../../apps/gateway/src/openapi/generator';
import { operationOf } from '../../apps/gateway/src/openapi/operation.decorator';
import { isPublicHandler } from '../../apps/gateway/src/http/public.decorator';
import { gatewayControllers, gatewayDocument } from './openapi-document';

const run = promisify(execFile);
const ROOT = join(__dirname, '..', '..');
const REDOCLY = join(ROOT, 'node_modules', '@redocly', 'cli', 'bin', 'cli.js');

interface LintReport {
  totals: { errors: number; warnings: number };
  problems: { ruleId: string; severity: string; message: string; location: { pointer?: string }[] }[];
}

/** Redocly CLI from node_modules, offline: no telemetry, no update check. */
async function lint(document: unknown): Promise<LintReport> {
  const dir = mkdtempSync(join(tmpdir(), 'openapi-lint-'));
  try {
    const file = join(dir, 'openapi.json');
    writeFileSync(file, JSON.stringify(document, null, 2));
    const result = await run(process.execPath, [REDOCLY, 'lint', file, '--format=json', `--config=${join(__dirname, 'redocly.yaml')}`], {
      cwd: dir,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', CI: 'true', NO_COLOR: '1' },
      maxBuffer: 64 * 1024 * 1024,
    }).catch((err: { stdout?: string; stderr?: string }) => ({ stdout: err.stdout ?? '', stderr: err.stderr ?? '' }));
    const start = result.stdout.indexOf('{');
    if (start < 0) throw new Error(`redocly printed no report:\n${result.stdout}\n${result.stderr}`);
    return JSON.parse(result.stdout.slice(start, result.stdout.lastIndexOf('}') + 1)) as LintReport;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('OpenAPI document', () => {
  const doc = gatewayDocument();

  it('lints clean with Redocly CLI (recommended-strict: any problem fails)', async () => {
    const report = await lint(doc);
    const problems = report.problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location.map((l) => l.pointer).join(', ')}`);
    expect(problems).toEqual([]);
    expect(report.totals.errors).toBe(0);
  });

  it('a broken document does fail the lint (the check is live)', async () => {
    const broken = JSON.parse(JSON.stringify(doc));
    broken.paths['/leads'].get.responses['200'].content['application/json'].schema = { $ref: '#/components/schemas/Nope' };
    delete broken.info.version;
    const report = await lint(broken);
    expect(report.totals.errors).toBeGreaterThan(0);
  });

  it('is OpenAPI 3.1 served under /api/v1 with the Bearer scheme and the version of the spec', () => {
    expect(doc.openapi).toBe('3.1.0');
    // an absolute URL with variables (defaults: the local mesh), then the gateway serving the document
    expect(doc.servers).toEqual([
      expect.objectContaining({ url: '{scheme}://{host}/api/v1', variables: { scheme: expect.objectContaining({ default: 'http', enum: ['http', 'https'] }), host: expect.objectContaining({ default: '127.0.0.1:3000' }) } }),
      expect.objectContaining({ url: '/api/v1' }),
    ]);
    expect(doc.components.securitySchemes.ApiKey).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.security).toEqual([{ ApiKey: [] }]);
    expect(doc.info.version).toBe('2026-09-28');
    expect(doc.components.parameters.ServiceVersion).toMatchObject({ name: 'Service-Version', in: 'header' });
    expect(doc.components.parameters.IdempotencyKey).toMatchObject({ name: 'Idempotency-Key', in: 'header', schema: { maxLength: 255 } });
    expect(Object.keys(doc.components.headers).sort()).toEqual(
      ['IdempotentReplayed', 'RateLimitLimit', 'RateLimitRemaining', 'RateLimitReset', 'RequestId', 'RetryAfter'].sort(),
    );
  });

  it('documents every route of every gateway controller with its method (static check)', () => {
    const routes = discoverRoutes(gatewayControllers()).filter((r) => r.path.startsWith('/api/v1/'));
    expect(routes.length).toBeGreaterThan(15);
    for (const route of routes) {
      expect(doc.paths[toOpenApiPath(route.path)]?.[route.method.toLowerCase()]).toBeDefined();
    }
  });

  it("every operation: summary, the spec's error statuses with the error object, Request-Id and RateLimit-* headers", () => {
    const declared = new Map(discoverRoutes(gatewayControllers()).map((r) => [`${r.method} ${toOpenApiPath(r.path)}`, operationOf(r.handler)]));
    expect([...declared.values()].filter(Boolean).length).toBeGreaterThan(30);
    for (const [path, ops] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(ops)) {
        const key = `${method.toUpperCase()} ${path}`;
        expect(op.summary).toBeTruthy();
        const statuses = Object.keys(op.responses).map(Number);
        const spec = declared.get(key);
        if (spec) for (const status of spec.errors) expect({ key, status, has: statuses.includes(status) }).toEqual({ key, status, has: true });
        const success = statuses.filter((s) => s < 300);
        expect(success.length).toBeGreaterThan(0);
        for (const status of success) {
          expect(Object.keys(op.responses[status].headers)).toEqual(expect.arrayContaining(['Request-Id', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset']));
        }
        for (const status of statuses.filter((s) => s >= 400 && op.responses[s].$ref)) {
          const name = op.responses[status].$ref.split('/').pop();
          const response = doc.components.responses[name];
          expect(response.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Error' });
          expect(response.content['application/json'].example.error.code).toBe(Object.entries(ERROR_STATUS).find(([, s]) => s === status)?.[0]);
        }
        if (op.security?.length === 0) continue;
        expect(statuses).toEqual(expect.arrayContaining([401, 403, 429, 500]));
        if (method === 'post') {
          expect(op.parameters).toContainEqual({ $ref: '#/components/parameters/IdempotencyKey' });
          expect(Object.keys(op.responses[success[0]].headers)).toContain('Idempotent-Replayed');
        }
      }
    }
    expect(Object.keys(doc.components.responses.RateLimited.headers)).toContain('Retry-After');
  });

  it('request schemas come from the contracts DTOs the handlers validate with', () => {
    expect(doc.paths['/leads'].post.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/CreateLeadDto' });
    expect(doc.paths['/leads/{id}'].patch.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/UpdateLeadDto' });
    expect(doc.paths['/tasks'].post.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/CreateTaskDto' });
    const create = doc.components.schemas.CreateLeadDto;
    expect(create.additionalProperties).toBe(false);
    expect(create.properties.first_name).toMatchObject({ maxLength: 120 });
    expect(create.properties.full_name).toMatchObject({ type: 'string' });
    expect(create.properties.lens).toMatchObject({ enum: expect.arrayContaining(['leads', 'investors', 'researchers', 'grants']) });
    expect(create.properties.tags).toMatchObject({ maxItems: 20, items: { type: 'string', maxLength: 100 } });
    expect(create.properties.email).toMatchObject({ format: 'email' });
    expect(create.required ?? []).not.toContain('full_name');
    expect(doc.components.schemas.CreateExportDto).toMatchObject({
      required: ['format'],
      properties: { format: { enum: ['csv', 'json'] }, filter: { $ref: '#/components/schemas/ExportFilterDto' } },
    });
    expect(doc.components.schemas.CreateTaskDto.required).toContain('title');
    expect(doc.paths['/suppressions'].post.requestBody.content['application/json'].schema).toMatchObject({
      allOf: [{ $ref: '#/components/schemas/CreateSuppressionDto' }, { oneOf: [{ required: ['email'] }, { required: ['domain'] }] }],
    });
    // the query parameters of a list, with the common pagination
    const names = doc.paths['/leads'].get.parameters.map((p: any) => p.name).filter(Boolean);
    expect(names).toEqual(expect.arrayContaining(['limit', 'starting_after', 'lens', 'tag', 'stage_id', 'q', 'updated_since']));
    expect(doc.paths['/leads'].get.parameters.find((p: any) => p.name === 'limit').schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 100, default: 25 });
    expect(doc.paths['/leads/{id}'].get.parameters[0]).toMatchObject({ name: 'id', in: 'path', required: true });
  });

  it('the converter reads class-validator 0.15 metadata: optional, nullable and required fields', () => {
    const schema = dtoToJsonSchema(CreateLeadDto, { register: () => ({}) }) as any;
    expect(schema.properties.country).toMatchObject({ minLength: 2, maxLength: 2 });
    expect(schema.properties.website.format).toBe('uri');
  });

  it('response schemas: every resource of the spec, list envelopes and the deletion envelope', () => {
    for (const name of [
      'Source', 'SearchResults', 'SearchHit', 'Reveal', 'Lead', 'StageRef', 'Company', 'Pipeline', 'Stage', 'Task', 'CreditBalance',
      'LedgerEntry', 'WebhookEndpoint', 'Export', 'ExportFilter', 'DeletedObject', 'Error', 'Event',
    ]) expect(doc.components.schemas[name]).toBeDefined();
    expect(doc.paths['/leads'].get.responses['200'].content['application/json'].schema).toMatchObject({
      properties: { object: { const: 'list' }, data: { items: { $ref: '#/components/schemas/Lead' } }, has_more: { type: 'boolean' } },
      required: ['object', 'data', 'has_more', 'next_cursor'],
    });
    expect(doc.paths['/leads/{id}'].delete.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/DeletedObject' });
    expect(doc.paths['/exports'].post.responses['202']).toBeDefined();
    expect(doc.webhooks.event.post.parameters[0].name).toBe('Service-Signature');
  });

  it('webhooks: one entry per event type of the spec, each with its schema and an example that validates against it', () => {
    expect(Object.keys(doc.webhooks).sort()).toEqual(['event', ...PUBLIC_EVENT_TYPES].sort());
    expect(PUBLIC_EVENT_TYPES).toHaveLength(10);
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    const envelope = ['id', 'object', 'type', 'api_version', 'created', 'workspace_id', 'livemode', 'data'];
    for (const type of PUBLIC_EVENT_TYPES) {
      const op = doc.webhooks[type].post;
      expect(op.parameters).toContainEqual(expect.objectContaining({ name: 'Service-Signature', in: 'header', required: true }));
      const media = op.requestBody.content['application/json'];
      const name = media.schema.$ref.split('/').pop();
      const schema = doc.components.schemas[name];
      expect({ type, fixed: schema.properties.type.const }).toEqual({ type, fixed: type });
      expect(schema.allOf).toEqual([{ $ref: '#/components/schemas/Event' }]);
      const examples = Object.values<any>(media.examples);
      expect({ type, examples: examples.length }).toEqual({ type, examples: 1 });
      const value = examples[0].value;
      expect(Object.keys(value).sort()).toEqual([...envelope].sort());
      expect(value).toMatchObject({ object: 'event', type, id: expect.stringMatching(/^evt_/), workspace_id: expect.stringMatching(/^ws_/) });
      const validate = ajv.compile({ ...media.schema, components: doc.components });
      expect({ type, errors: validate(value) ? null : validate.errors }).toEqual({ type, errors: null });
      // the narrowing is live: another type's example does not validate against this type's schema
      const other = PUBLIC_EVENT_TYPES[(PUBLIC_EVENT_TYPES.indexOf(type) + 1) % PUBLIC_EVENT_TYPES.length];
      expect(validate(Object.values<any>(doc.webhooks[other].post.requestBody.content['application/json'].examples)[0].value)).toBe(false);
    }
    const updated = Object.values<any>(doc.webhooks['lead.updated'].post.requestBody.content['application/json'].examples)[0].value;
    expect(Object.keys(updated.data.previous_attributes).length).toBeGreaterThan(0);
  });

  it('every error response links its section of the error catalogue', () => {
    const base = 'https://docs.leadintel.dev/api/errors';
    const check = (where: string, response: any, status: number) => {
      const code = Object.entries(ERROR_STATUS).find(([, s]) => s === status)?.[0] ?? 'internal_error';
      expect({ where, links: response.description.includes(`](${base}#${code})`) }).toEqual({ where, links: true });
    };
    for (const [name, response] of Object.entries<any>(doc.components.responses)) {
      const status = ERROR_STATUS[response.content['application/json'].example.error.code as keyof typeof ERROR_STATUS];
      check(name, response, status);
      expect(response.content['application/json'].example.error.doc_url).toBe(`${base}#${response.content['application/json'].example.error.code}`);
    }
    for (const [path, ops] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(ops)) {
        for (const [status, response] of Object.entries<any>(op.responses)) {
          if (Number(status) >= 400 && !response.$ref) check(`${method} ${path} ${status}`, response, Number(status));
        }
      }
    }
  });

  it('a new controller is documented with no edit of the generator: its routes, the DTOs its handlers take, generic responses where no resource schema is known', async () => {
    @Controller('api/v1/widgets')
    class WidgetsController {
      @Get()
      list(@Query() query: ListLeadsQueryDto) { return query; }

      @Post()
      create(@Body() body: CreateTaskDto) { return body; }

      @Get(':id/parts/:part_id')
      part(@Param('id') id: string) { return id; }

      @Delete(':id')
      remove(@Param('id') id: string) { return id; }
    }
    const widgets = buildOpenApiDocument([WidgetsController]) as any;
    expect(Object.keys(widgets.paths).sort()).toEqual(['/widgets', '/widgets/{id}', '/widgets/{id}/parts/{part_id}']);
    expect(widgets.paths['/widgets'].get.parameters.map((p: any) => p.name)).toEqual(expect.arrayContaining(['limit', 'lens', 'updated_since']));
    expect(widgets.paths['/widgets'].get.responses['200'].content['application/json'].schema.properties.data.items).toEqual({ $ref: '#/components/schemas/GenericObject' });
    expect(widgets.paths['/widgets'].post.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/CreateTaskDto' });
    expect(Object.keys(widgets.paths['/widgets'].post.responses)).toEqual(expect.arrayContaining(['201', '400', '401', '403', '409', '429', '500']));
    expect(widgets.paths['/widgets'].post.parameters).toContainEqual({ $ref: '#/components/parameters/IdempotencyKey' });
    expect(widgets.paths['/widgets/{id}/parts/{part_id}'].get.parameters.filter((p: any) => p.in === 'path').map((p: any) => p.name)).toEqual(['id', 'part_id']);
    expect(widgets.paths['/widgets/{id}/parts/{part_id}'].get.responses['404']).toBeDefined();
    expect(widgets.paths['/widgets/{id}'].delete.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/DeletedObject' });
    const report = await lint(widgets);
    expect(report.problems.map((p) => `${p.ruleId}: ${p.message}`)).toEqual([]);
  });

  it('the documentation routes are public, and nothing else is but the signed-link and opt-out routes', () => {
    expect(doc.paths['/openapi.json'].get.security).toEqual([]);
    expect(doc.paths['/docs'].get.security).toEqual([]);
    // what the pipeline admits without a key is what `@Public()` marks, and the document says so
    const marked = discoverRoutes(gatewayControllers()).filter((r) => isPublicHandler(r.handler)).map((r) => `${r.method} ${toOpenApiPath(r.path)}`);
    expect(marked.sort()).toEqual([
      'GET /docs', 'GET /docs/errors', 'GET /docs/redoc.standalone.js', 'GET /exports/{id}/download', 'GET /openapi.json', 'GET /optout', 'GET /optout/confirm/{token}', 'GET /postman_collection.json',
      'GET /unsubscribe/{token}', 'POST /optout', 'POST /optout/confirm/{token}', 'POST /unsubscribe/{token}',
    ]);
    const keyless = Object.entries<any>(doc.paths).flatMap(([path, ops]) =>
      Object.entries<any>(ops).filter(([, op]) => op.security?.length === 0).map(([method]) => `${method.toUpperCase()} ${path}`));
    expect(keyless.sort()).toEqual(marked);
  });
});
