// Compile-time checks of the client's types (test/openapi/client-package.e2e-spec.ts compiles this
// file with the package's strict settings; it is never run).
import { LeadIntelClient, ListPath } from '../src';

export async function typed(client: LeadIntelClient): Promise<string[]> {
  const names: string[] = [];
  for await (const lead of client.paginate('/leads', { query: { limit: 100, tag: 'vip' } })) names.push(lead.full_name ?? lead.id);
  for await (const page of client.pages('/webhook_endpoints/{id}/deliveries', { path: { id: 'we_1' } })) names.push(String(page.has_more));
  const paths: ListPath[] = ['/leads', '/tasks', '/suppressions', '/webhook_endpoints'];
  return [...names, ...paths];
}

export async function rejected(client: LeadIntelClient): Promise<void> {
  // @ts-expect-error GET /credits answers no list
  client.paginate('/credits');
  for await (const lead of client.paginate('/leads')) {
    // @ts-expect-error a lead has no field `nope`
    void lead.nope;
    // @ts-expect-error full_name is a string (or null)
    const n: number = lead.full_name;
    void n;
  }
  // @ts-expect-error the deliveries of an endpoint need its id
  client.pages('/webhook_endpoints/{id}/deliveries');
  // @ts-expect-error limit is a number
  client.paginate('/tasks', { query: { limit: 'ten' } });
}
