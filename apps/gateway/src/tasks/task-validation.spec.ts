import 'reflect-metadata';
import { CreateTaskDto, ListTasksQueryDto, UpdateTaskDto } from '@app/contracts/dto';
import { ApiError } from '../http/api-error';
import { validateInput } from '../http/validation';

const s = (n: number) => 'x'.repeat(n);

function rejection(dto: new () => object, input: unknown, where: 'body' | 'query'): { code: string; status: number; param?: string } {
  try {
    validateInput(dto, input, where);
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    const { code, status, param } = err as ApiError;
    return { code, status, param };
  }
  throw new Error(`expected ${JSON.stringify(input)} to be rejected`);
}

const invalid = (param: string) => ({ code: 'invalid_request', status: 400, param });

describe('validateInput(CreateTaskDto)', () => {
  it.each<[string, unknown, string]>([
    ['no title', {}, 'title'],
    ['title null', { title: null }, 'title'],
    ['title empty', { title: '' }, 'title'],
    ['title blank', { title: ' \n\t ' }, 'title'],
    ['title over 300', { title: s(301) }, 'title'],
    ['title a number', { title: 7 }, 'title'],
    ['lead_id null', { title: 't', lead_id: null }, 'lead_id'],
    ['lead_id a number', { title: 't', lead_id: 5 }, 'lead_id'],
    ['lead_id over 255', { title: 't', lead_id: s(256) }, 'lead_id'],
    ['assignee_id null', { title: 't', assignee_id: null }, 'assignee_id'],
    ['assignee_id an array', { title: 't', assignee_id: ['usr_x'] }, 'assignee_id'],
    ['due_at null', { title: 't', due_at: null }, 'due_at'],
    ['due_at a date', { title: 't', due_at: '2026-10-01' }, 'due_at'],
    ['due_at without zone', { title: 't', due_at: '2026-10-01T09:00:00' }, 'due_at'],
    ['due_at 30 February', { title: 't', due_at: '2026-02-30T09:00:00Z' }, 'due_at'],
    ['due_at epoch millis', { title: 't', due_at: 1759309200000 }, 'due_at'],
    ['status (not a create field)', { title: 't', status: 'done' }, 'status'],
    ['completed_at (read-only)', { title: 't', completed_at: '2026-10-01T09:00:00Z' }, 'completed_at'],
  ])('%s -> 400 %p', (_label, body, param) => {
    expect(rejection(CreateTaskDto, body, 'body')).toEqual(invalid(param));
  });

  it('accepts a title of 300 characters with every optional field', () => {
    const body = { title: s(300), lead_id: 'lead_x', assignee_id: 'usr_x', due_at: '2026-10-01T09:00:00+02:00' };
    expect(validateInput(CreateTaskDto, body, 'body')).toEqual(body);
  });
});

describe('validateInput(UpdateTaskDto)', () => {
  it.each<[string, unknown, string]>([
    ['title null', { title: null }, 'title'],
    ['title blank', { title: '  ' }, 'title'],
    ['title over 300', { title: s(301) }, 'title'],
    ['status not in the enum', { status: 'closed' }, 'status'],
    ['status null', { status: null }, 'status'],
    ['status in capitals', { status: 'DONE' }, 'status'],
    ['due_at not a date-time', { due_at: 'next week' }, 'due_at'],
    ['due_at a number', { due_at: 0 }, 'due_at'],
    ['assignee_id a number', { assignee_id: 3 }, 'assignee_id'],
    ['lead_id (not a PATCH field)', { lead_id: 'lead_x' }, 'lead_id'],
    ['completed_at (read-only)', { completed_at: null }, 'completed_at'],
  ])('%s -> 400 %p', (_label, body, param) => {
    expect(rejection(UpdateTaskDto, body, 'body')).toEqual(invalid(param));
  });

  it('null clears due_at and unassigns; an empty body is valid', () => {
    expect(validateInput(UpdateTaskDto, { due_at: null, assignee_id: null }, 'body')).toEqual({ due_at: null, assignee_id: null });
    expect(validateInput(UpdateTaskDto, {}, 'body')).toEqual({});
  });
});

describe('validateInput(ListTasksQueryDto)', () => {
  it.each<[string, unknown, string]>([
    ['status not in the enum', { status: 'closed' }, 'status'],
    ['status repeated', { status: ['open', 'done'] }, 'status'],
    ['lead_id repeated', { lead_id: ['lead_a', 'lead_b'] }, 'lead_id'],
    ['assignee_id over 255', { assignee_id: s(256) }, 'assignee_id'],
    ['due_before a date', { due_before: '2026-10-01' }, 'due_before'],
    ['due_before month 13', { due_before: '2026-13-01T00:00:00Z' }, 'due_before'],
    ['due_before repeated', { due_before: ['2026-10-01T00:00:00Z', '2026-10-02T00:00:00Z'] }, 'due_before'],
    ['limit 0', { limit: '0' }, 'limit'],
    ['an unknown parameter', { tag: 'vip' }, 'tag'],
  ])('%s -> 400 %p', (_label, query, param) => {
    expect(rejection(ListTasksQueryDto, query, 'query')).toEqual(invalid(param));
  });

  it('accepts every filter together', () => {
    const query = { limit: '10', starting_after: 'abc', status: 'open', lead_id: 'lead_x', assignee_id: 'usr_x', due_before: '2026-10-01T00:00:00Z' };
    expect(validateInput(ListTasksQueryDto, query, 'query')).toEqual(query);
  });
});
