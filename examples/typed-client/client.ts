/**
 * A typed client of the Lead Intelligence API in a few lines: the types come from the committed
 * OpenAPI document (openapi-typescript generates ./api.d.ts from docs/openapi.json), the calls
 * go through openapi-fetch, so a path, parameter, body field or response field the document
 * does not have is a compile error, not a runtime surprise.
 *
 *   npx openapi-typescript docs/openapi.json -o examples/typed-client/api.d.ts
 *   LIM_API_URL=http://127.0.0.1:3000/api/v1 LIM_API_KEY=svc_test_… node <compiled client.js>
 */
import createClient from 'openapi-fetch';
import type { paths } from './api';

async function main(): Promise<void> {
  const baseUrl = process.env.LIM_API_URL ?? 'http://127.0.0.1:3000/api/v1';
  const apiKey = process.env.LIM_API_KEY;
  if (!apiKey) throw new Error('set LIM_API_KEY to an API key (svc_live_… or svc_test_…)');
  const api = createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${apiKey}` } });

  const created = await api.POST('/leads', {
    body: { full_name: 'Ada Lovelace', email: 'ada@analytical.test', company_name: 'Analytical Engines', tags: ['typed-client'] },
    params: { header: { 'Idempotency-Key': `typed-client-${Date.now()}` } },
  });
  if (!created.data) throw new Error(`POST /leads: ${created.response.status} ${JSON.stringify(created.error)}`);
  const lead = created.data;

  const listed = await api.GET('/leads', { params: { query: { limit: 10 } } });
  if (!listed.data) throw new Error(`GET /leads: ${listed.response.status} ${JSON.stringify(listed.error)}`);

  const fetched = await api.GET('/leads/{id}', { params: { path: { id: lead.id } } });
  if (!fetched.data) throw new Error(`GET /leads/{id}: ${fetched.response.status} ${JSON.stringify(fetched.error)}`);

  const missing = await api.GET('/leads/{id}', { params: { path: { id: 'lead_doesnotexist' } } });

  process.stdout.write(`${JSON.stringify({
    created: { id: lead.id, status: created.response.status, email: lead.email },
    listed: { ids: listed.data.data.map((l) => l.id), has_more: listed.data.has_more },
    fetched: { id: fetched.data.id, full_name: fetched.data.full_name, company_name: fetched.data.company_name },
    missing: { status: missing.response.status, code: missing.error?.error.code },
  })}\n`);
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).message}\n`);
  process.exit(1);
});
