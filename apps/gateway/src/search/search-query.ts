import {
  COMPANY_SIZES, LENSES, Lens, SEARCH_FILTER_KEYS, SEARCH_MAX_PAGE, SEARCH_Q_MAX, SearchRequest,
} from '@app/contracts';
import { ApiError } from '../http/api-error';
import type { OperationDoc } from '../openapi/operation.decorator';

export const INVESTOR_STAGES = ['pre_seed', 'seed', 'series_a', 'series_b', 'series_c', 'growth'] as const;
export const INVESTOR_TYPES = ['vc', 'angel', 'family_office', 'corporate', 'accelerator', 'private_equity'] as const;
export const REGIONS = ['north_america', 'south_america', 'europe', 'africa', 'asia', 'oceania', 'middle_east'] as const;

type Check = (value: string) => string | null; // error message or null

const text: Check = (v) => (v.trim() === '' || v.length > 100 ? 'must be 1 to 100 characters' : null);
const oneOf = (allowed: readonly string[]): Check => (v) => (allowed.includes(v) ? null : `must be one of ${allowed.join(', ')}`);
const alpha2: Check = (v) => (/^[A-Za-z]{2}$/.test(v) ? null : 'must be a two-letter code');
const integer = (min: number, max: number): Check => (v) => (/^\d{1,12}$/.test(v) && Number(v) >= min && Number(v) <= max ? null : `must be an integer from ${min} to ${max}`);
const date: Check = (v) => {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(v)) return 'must be a date (YYYY-MM-DD)';
  const d = new Date(`${v}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === v ? null : 'must be a real date (YYYY-MM-DD)';
};

const CHECKS: Record<Lens, Record<string, Check>> = {
  leads: { industry: text, country: alpha2, size: oneOf(COMPANY_SIZES), title: text },
  investors: { stage: oneOf(INVESTOR_STAGES), sector: text, type: oneOf(INVESTOR_TYPES), check_min: integer(0, 1e12), check_max: integer(0, 1e12), state: alpha2 },
  researchers: { region: oneOf(REGIONS), country: alpha2, institution: text, min_works: integer(0, 1_000_000), recency: integer(1, 100) },
  grants: { agency: text, program: text, mechanism: text, deadline_before: date },
};

const MAX_VALUES_PER_FILTER = 20;

function values(raw: unknown, param: string): string[] {
  const list = Array.isArray(raw) ? raw : [raw];
  if (list.length > MAX_VALUES_PER_FILTER) throw ApiError.invalid(param, `${param} accepts at most ${MAX_VALUES_PER_FILTER} values`);
  return list.map((v) => {
    if (typeof v !== 'string') throw ApiError.invalid(param, `${param} must be a string`);
    return v;
  });
}

/** GET /search's query: lens, q, page and `filters[key]` (repeatable), each checked for its lens. */
export function parseSearchQuery(query: unknown): SearchRequest {
  const input = (query && typeof query === 'object' ? query : {}) as Record<string, unknown>;
  const filtersRaw: Record<string, unknown> = {};
  let lens: Lens | undefined;
  let q = '';
  let page = 1;
  for (const [key, raw] of Object.entries(input)) {
    const bracket = /^filters\[([^\]]*)\]$/.exec(key);
    if (bracket) {
      filtersRaw[bracket[1]] = raw;
      continue;
    }
    if (key === 'filters' && raw && typeof raw === 'object' && !Array.isArray(raw)) {
      Object.assign(filtersRaw, raw);
      continue;
    }
    if (key === 'lens') {
      const [v] = values(raw, 'lens');
      if (Array.isArray(raw) || !(LENSES as readonly string[]).includes(v)) throw ApiError.invalid('lens', `lens must be one of ${LENSES.join(', ')}`);
      lens = v as Lens;
    } else if (key === 'q') {
      if (Array.isArray(raw) || typeof raw !== 'string') throw ApiError.invalid('q', 'q must be a single string');
      if (raw.length > SEARCH_Q_MAX) throw ApiError.invalid('q', `q must be at most ${SEARCH_Q_MAX} characters`);
      q = raw;
    } else if (key === 'page') {
      if (Array.isArray(raw) || typeof raw !== 'string' || !/^\d{1,3}$/.test(raw) || Number(raw) < 1 || Number(raw) > SEARCH_MAX_PAGE) {
        throw ApiError.invalid('page', `page must be an integer from 1 to ${SEARCH_MAX_PAGE}`);
      }
      page = Number(raw);
    } else {
      throw ApiError.invalid(key, `Unknown parameter: ${key}`);
    }
  }
  if (!lens) throw ApiError.invalid('lens', 'lens is required');
  const filters: Record<string, string[]> = {};
  for (const [key, raw] of Object.entries(filtersRaw)) {
    const param = `filters[${key}]`;
    const check = Object.prototype.hasOwnProperty.call(CHECKS[lens], key) ? CHECKS[lens][key] : undefined;
    if (!check || !SEARCH_FILTER_KEYS[lens].includes(key)) {
      throw ApiError.invalid(param, `Unknown filter for the ${lens} lens: ${key} (allowed: ${SEARCH_FILTER_KEYS[lens].join(', ')})`);
    }
    const list = values(raw, param);
    for (const v of list) {
      const problem = check(v);
      if (problem) throw ApiError.invalid(param, `${param} ${problem}`);
    }
    filters[key] = list;
  }
  return { lens, q, filters, page };
}

const SEARCH_FILTERS = [...new Set(Object.values(SEARCH_FILTER_KEYS).flat())];

/** GET /search's query parameters as the document describes them (the handler checks them with parseSearchQuery). */
export const SEARCH_QUERY_DOC: OperationDoc['query'] = {
  lens: { required: true, description: 'The lens to search.', schema: { type: 'string', enum: [...LENSES] } },
  q: { description: 'Free text: names, topics, domains, programs.', schema: { type: 'string', maxLength: SEARCH_Q_MAX } },
  filters: {
    description:
      'Filters as `filters[key]=value`; repeat the key for several values. Leads: ' + SEARCH_FILTER_KEYS.leads.join(', ') +
      '. Investors: ' + SEARCH_FILTER_KEYS.investors.join(', ') + '. Researchers: ' + SEARCH_FILTER_KEYS.researchers.join(', ') +
      '. Grants: ' + SEARCH_FILTER_KEYS.grants.join(', ') + '.',
    schema: {
      type: 'object',
      propertyNames: { enum: SEARCH_FILTERS },
      additionalProperties: { oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' }, maxItems: 20 }] },
    },
  },
  page: { description: '1 to 40.', schema: { type: 'integer', minimum: 1, maximum: SEARCH_MAX_PAGE, default: 1 } },
};
