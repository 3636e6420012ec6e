import 'reflect-metadata';
import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { CreateTaskDto, ListLeadsQueryDto } from '@app/contracts/dto';
import { loadGatewayConfig } from '../config';
import { GatewayModule } from '../gateway.module';
import { buildOpenApiDocument, declaredInputs, discoverRoutes } from './generator';
import { Operation, operationOf, OperationDoc } from './operation.decorator';

const WIDGET_LIST: OperationDoc = { summary: 'List widgets', description: 'Newest first.', response: 'list:Lead', errors: [400, 401, 403, 429, 500] };

@Controller('api/v1/widgets')
class WidgetsController {
  @Get()
  @Operation(WIDGET_LIST)
  list(@Query() query: ListLeadsQueryDto) {
    return query;
  }

  @Post()
  @HttpCode(202)
  @Operation({
    summary: 'Queue a widget',
    response: 'Task',
    status: 202,
    alsoStatus: { 200: 'Already queued.' },
    errors: [400, 404],
    idempotent: false,
  })
  create(@Body() body: CreateTaskDto) {
    return body;
  }

  @Post(':id/notes')
  note(@Param('id') id: string, @Body('text') text: CreateTaskDto, @Query() query: unknown) {
    return { id, text, query };
  }
}

describe('@Operation', () => {
  it('is stored on the handler and read back as declared', () => {
    expect(operationOf(WidgetsController.prototype.list)).toBe(WIDGET_LIST);
    expect(operationOf(WidgetsController.prototype.note)).toBeUndefined();
  });

  it('the document takes each operation from its handler: summary, description, response, success statuses and errors', () => {
    const doc = buildOpenApiDocument([WidgetsController]) as any;
    const list = doc.paths['/widgets'].get;
    expect(list).toMatchObject({ operationId: 'widgets_list', summary: 'List widgets', description: 'Newest first.' });
    expect(list.responses['200'].content['application/json'].schema.properties.data.items).toEqual({ $ref: '#/components/schemas/Lead' });
    expect(Object.keys(list.responses).sort()).toEqual(['200', '400', '401', '403', '429', '500', '503']);

    const create = doc.paths['/widgets'].post;
    expect(create.summary).toBe('Queue a widget');
    expect(create.responses['202'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Task' });
    expect(create.responses['200'].description).toBe('Already queued.');
    // the common statuses join the declared ones on a keyed route
    expect(Object.keys(create.responses).sort()).toEqual(['200', '202', '400', '401', '403', '404', '429', '500', '503']);
    expect(create.parameters).not.toContainEqual({ $ref: '#/components/parameters/IdempotencyKey' });
    expect(create.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/CreateTaskDto' });
  });

  it('a handler without it is documented from its route: a summary from the path, a generic response, the common errors', () => {
    const note = (buildOpenApiDocument([WidgetsController]) as any).paths['/widgets/{id}/notes'].post;
    expect(note.summary).toBe('Create widgets id notes');
    expect(Object.keys(note.responses).sort()).toEqual(['201', '400', '401', '403', '404', '409', '429', '500', '503']);
    expect(note.parameters).toContainEqual({ $ref: '#/components/parameters/IdempotencyKey' });
  });
});

describe('declaredInputs', () => {
  it('finds the DTO a handler takes as its whole body or query, by its parameter types', () => {
    expect(declaredInputs(WidgetsController, 'list')).toEqual({ body: undefined, query: ListLeadsQueryDto });
    expect(declaredInputs(WidgetsController, 'create')).toEqual({ body: CreateTaskDto, query: undefined });
  });

  it('ignores a single field (`@Body("text")`) and an input typed unknown', () => {
    expect(declaredInputs(WidgetsController, 'note')).toEqual({ body: undefined, query: undefined });
  });
});

describe("the gateway's own routes", () => {
  it('every route under /api/v1 declares its operation on its handler', () => {
    const controllers = (GatewayModule.register(loadGatewayConfig({ APP: 'gateway' })).controllers ?? []) as Function[];
    const routes = discoverRoutes(controllers).filter((r) => r.path.startsWith('/api/v1/'));
    expect(routes.length).toBeGreaterThan(30);
    const undeclared = routes.filter((r) => !operationOf(r.handler)).map((r) => `${r.method} ${r.path}`);
    expect(undeclared).toEqual([]);
  });
});
