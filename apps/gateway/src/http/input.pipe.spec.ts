import 'reflect-metadata';
import { Body, Controller, Get, Param, Patch, Post, Query } from '@nestjs/common';
import { APP_FILTER, APP_PIPE } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import { RequestContext } from '@app/contracts';
import { CreateExportDto, CreateLeadDto, ListLeadsQueryDto, UpdateLeadDto } from '@app/contracts/dto';
import { SERVICE_CONFIG } from '@app/platform';
import { ApiKeysRepository } from '../auth/api-keys.repository';
import { ApiError } from './api-error';
import { ApiErrorFilter } from './error-filter';
import { InputPipe } from './input.pipe';
import { LensOnPlan } from './lens.guard';
import { MemberOf } from './member.guard';
import { Ctx } from './request-context.decorator';

describe('InputPipe.transform', () => {
  const pipe = new InputPipe();
  const fail = (run: () => unknown): ApiError => {
    try {
      run();
    } catch (err) {
      return err as ApiError;
    }
    throw new Error('expected a refusal');
  };

  it('a body typed with a contracts DTO comes back as an instance of it', () => {
    const lead = pipe.transform({ full_name: 'Ada Lovelace', tags: ['a'] }, { type: 'body', metatype: CreateLeadDto });
    expect(lead).toBeInstanceOf(CreateLeadDto);
    expect(lead).toEqual({ full_name: 'Ada Lovelace', tags: ['a'] });
  });

  it.each<[string, unknown, string | undefined]>([
    ['an unknown field', { full_name: 'x', nickname: 'y' }, 'nickname'],
    ['a wrong type', { full_name: 'x', tags: 'a' }, 'tags'],
    ['a nested __proto__', { full_name: 'x', custom_fields: { ['__proto__']: 1 } }, undefined],
    ['an array, not an object', [], undefined],
    ['a string, not an object', 'text', undefined],
  ])('a body with %s is 400 invalid_request naming the field', (_label, body, param) => {
    const err = fail(() => pipe.transform(body, { type: 'body', metatype: CreateLeadDto }));
    expect(err).toBeInstanceOf(ApiError);
    expect(err.code).toBe('invalid_request');
    if (param) expect(err.param).toBe(param);
  });

  it('refuses a key class-transformer would drop, naming it', () => {
    const body = JSON.parse('{"full_name":"x","__proto__":{}}');
    const err = fail(() => pipe.transform(body, { type: 'body', metatype: CreateLeadDto }));
    expect({ code: err.code, param: err.param, message: err.message }).toEqual({ code: 'invalid_request', param: '__proto__', message: 'Unknown parameter: __proto__' });
  });

  it('an absent body or query is an empty object, checked as such', () => {
    expect(pipe.transform(undefined, { type: 'query', metatype: ListLeadsQueryDto })).toEqual({});
    expect(fail(() => pipe.transform(undefined, { type: 'body', metatype: CreateExportDto })).param).toBe('format');
  });

  it('a query typed with a DTO: unknown parameters and broken rules are 400 naming them', () => {
    expect(fail(() => pipe.transform({ limit: '0' }, { type: 'query', metatype: ListLeadsQueryDto })).param).toBe('limit');
    expect(fail(() => pipe.transform({ bogus: '1' }, { type: 'query', metatype: ListLeadsQueryDto })).message).toBe('Unknown parameter: bogus');
  });

  it('leaves untouched (the same value) what is not typed with a DTO: unknown, objects, strings, custom decorators', () => {
    const value = { anything: [1, 2] };
    expect(pipe.transform(value, { type: 'body', metatype: Object })).toBe(value);
    expect(pipe.transform(value, { type: 'query', metatype: undefined })).toBe(value);
    expect(pipe.transform(value, { type: 'custom', metatype: CreateLeadDto })).toBe(value);
    class Plain {
      x?: string;
    }
    expect(pipe.transform(value, { type: 'body', metatype: Plain })).toBe(value);
  });

  it('a path id longer than any id is 404 not_found naming the parameter; other path parameters pass', () => {
    expect(pipe.transform('lead_1', { type: 'param', metatype: String, data: 'id' })).toBe('lead_1');
    expect(pipe.transform('x'.repeat(255), { type: 'param', metatype: String, data: 'id' })).toBe('x'.repeat(255));
    for (const data of ['id', 'lead_id']) {
      const err = fail(() => pipe.transform('x'.repeat(256), { type: 'param', metatype: String, data }));
      expect({ code: err.code, status: err.status, param: err.param }).toEqual({ code: 'not_found', status: 404, param: data });
    }
    // a signed token is no id: its length is the route's business
    expect(pipe.transform('t'.repeat(400), { type: 'param', metatype: String, data: 'token' })).toBe('t'.repeat(400));
  });
});

/** The pipe and the guards in Nest's own pipeline (APP_PIPE, @UseGuards), on Fastify, with no database or broker. */
describe('InputPipe, @LensOnPlan and @MemberOf through Nest', () => {
  const received: unknown[] = [];

  @Controller('api/v1/things')
  class ThingsController {
    @Get()
    @LensOnPlan('query', 'lens')
    list(@Ctx() _ctx: RequestContext, @Query() query: ListLeadsQueryDto) {
      received.push(query);
      return { object: 'list', data: [], has_more: false, next_cursor: null };
    }

    @Post()
    @LensOnPlan('body', 'lens')
    create(@Ctx() _ctx: RequestContext, @Body() lead: CreateLeadDto) {
      received.push(lead);
      return { object: 'lead' };
    }

    @Post('exports')
    @LensOnPlan('body', 'filter.lens')
    export(@Body() input: CreateExportDto) {
      received.push(input);
      return { object: 'export' };
    }

    @Get(':id')
    get(@Param('id') id: string) {
      return { id };
    }

    @Patch(':id')
    @MemberOf('owner_id')
    update(@Param('id') id: string, @Body() changes: UpdateLeadDto) {
      received.push(changes);
      return { id };
    }
  }

  const members = new Set(['usr_member']);
  const looked: string[] = [];
  let app: NestFastifyApplication;
  let base: string;

  beforeAll(async () => {
    const module = await Test.createTestingModule({
      controllers: [ThingsController],
      providers: [
        { provide: SERVICE_CONFIG, useValue: { docsUrl: 'https://docs.example.com/errors' } },
        {
          provide: ApiKeysRepository,
          useValue: { memberExists: async (_ws: string, id: string) => (looked.push(id), members.has(id)) },
        },
        { provide: APP_FILTER, useClass: ApiErrorFilter },
        { provide: APP_PIPE, useClass: InputPipe },
      ],
    }).compile();
    app = module.createNestApplication<NestFastifyApplication>(new FastifyAdapter({ routerOptions: { maxParamLength: 512 } }));
    app.getHttpAdapter().getInstance().addHook('onRequest', async (request) => {
      request.ctx = { workspace_id: 'ws_1', lenses: ['leads'] } as unknown as RequestContext;
    });
    await app.listen(0, '127.0.0.1');
    base = await app.getUrl();
  });

  afterAll(() => app.close());
  beforeEach(() => {
    received.length = 0;
    looked.length = 0;
  });

  const call = async (method: 'GET' | 'POST' | 'PATCH', url: string, body?: unknown) => {
    const res = await fetch(`${base}${url}`, {
      method,
      ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
    });
    return { status: res.status, body: (await res.json()) as any };
  };

  it('a valid query reaches the handler as its DTO', async () => {
    expect((await call('GET', '/api/v1/things?lens=leads&limit=5')).status).toBe(200);
    expect(received).toEqual([{ lens: 'leads', limit: '5' }]);
    expect(received[0]).toBeInstanceOf(ListLeadsQueryDto);
  });

  it('an invalid query or body is the error object (400 invalid_request, param) and the handler never runs', async () => {
    expect(await call('GET', '/api/v1/things?limit=500')).toEqual({
      status: 400,
      body: { error: expect.objectContaining({ type: 'invalid_request_error', code: 'invalid_request', param: 'limit' }) },
    });
    expect((await call('POST', '/api/v1/things', { full_name: 'x', nickname: 'y' })).body.error).toMatchObject({ code: 'invalid_request', param: 'nickname', message: 'Unknown parameter: nickname' });
    expect(received).toEqual([]);
  });

  it('a lens not on the plan is 403 naming the field (query, body, nested body); a lens on it passes', async () => {
    expect(await call('GET', '/api/v1/things?lens=investors')).toMatchObject({ status: 403, body: { error: { code: 'permission_denied', param: 'lens' } } });
    expect(await call('POST', '/api/v1/things', { full_name: 'x', lens: 'grants' })).toMatchObject({ status: 403, body: { error: { param: 'lens' } } });
    expect(await call('POST', '/api/v1/things/exports', { format: 'csv', filter: { lens: 'grants' } })).toMatchObject({ status: 403, body: { error: { param: 'filter.lens' } } });
    expect(received).toEqual([]);
    expect((await call('POST', '/api/v1/things/exports', { format: 'csv', filter: { lens: 'leads' } })).status).toBe(201);
  });

  it('a value that is no lens is the pipe\'s 400, not a 403', async () => {
    expect(await call('GET', '/api/v1/things?lens=people')).toMatchObject({ status: 400, body: { error: { code: 'invalid_request', param: 'lens' } } });
  });

  it('@MemberOf: an unknown member is 404 on the field; a member, null and absent pass; a malformed value is the pipe\'s 400', async () => {
    expect(await call('PATCH', '/api/v1/things/lead_1', { owner_id: 'usr_nobody' })).toMatchObject({ status: 404, body: { error: { code: 'not_found', param: 'owner_id' } } });
    expect(received).toEqual([]);
    expect((await call('PATCH', '/api/v1/things/lead_1', { owner_id: 'usr_member' })).status).toBe(200);
    expect((await call('PATCH', '/api/v1/things/lead_1', { owner_id: null })).status).toBe(200);
    expect((await call('PATCH', '/api/v1/things/lead_1', { title: 'CTO' })).status).toBe(200);
    expect(looked).toEqual(['usr_nobody', 'usr_member']);
    expect(await call('PATCH', '/api/v1/things/lead_1', { owner_id: 7 })).toMatchObject({ status: 400, body: { error: { param: 'owner_id' } } });
    expect(await call('PATCH', '/api/v1/things/lead_1', { owner_id: 'u'.repeat(256) })).toMatchObject({ status: 400, body: { error: { param: 'owner_id' } } });
    expect(looked).toEqual(['usr_nobody', 'usr_member']);
  });

  it('a path id longer than any id is 404 naming it; a real one passes', async () => {
    expect(await call('GET', `/api/v1/things/${'x'.repeat(300)}`)).toMatchObject({ status: 404, body: { error: { code: 'not_found', param: 'id' } } });
    expect(await call('GET', '/api/v1/things/lead_1')).toEqual({ status: 200, body: { id: 'lead_1' } });
  });
});
