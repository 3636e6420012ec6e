import { Resolver } from 'node:dns/promises';
import { LENSES } from '@app/contracts/enums';
import { ConfigError } from '@app/platform/config-error';
import { candidateAddresses } from '../../../apps/search/src/reveals/email-verifier';
import { DemoSandbox, startDemoSandbox } from '../../../tools/mesh/demo-sandbox';
import { waitFor } from '../../../tools/mesh/processes';
import { TestMesh, meshHookTimeoutMs } from '../../harness';
import { allowance } from '../../support/timing';

/**
 * `npm start`'s demo mail sandbox, started as start.ts starts it, with search pointed at it the
 * same way: reveals of the demo corpus go through search's real verifier, DNS and SMTP included.
 */
describe('demo mail sandbox', () => {
  let sandbox: DemoSandbox;
  let mesh: TestMesh;
  let key: string;
  const said: string[] = [];

  beforeAll(async () => {
    sandbox = (await startDemoSandbox({}, (line) => said.push(line)))!;
    mesh = await TestMesh.start(['gateway', 'billing', 'search', 'crm'], sandbox.env);
    // the first 400 entities of the corpus npm start seeds (the seed is deterministic per index)
    expect(await mesh.admin('search:seed', '--count', '400')).toMatchObject({ inserted: 400 });
    const workspace = await mesh.createWorkspace({ name: 'demo', planCredits: 1000 });
    key = (await mesh.key(workspace.id, 'live')).key;
    await waitFor('credit account', async () => (await mesh.query('billing', 'SELECT 1 FROM credit_accounts WHERE workspace_id = $1', [workspace.id])).length === 1, allowance(10_000));
  }, meshHookTimeoutMs(4));
  afterAll(async () => {
    await mesh?.close();
    await sandbox?.close();
  });

  it('is printed at start-up; DEMO_MAIL_SANDBOX=off or EMAIL_VERIFY_DNS_SERVERS leaves it off', async () => {
    expect(said).toEqual([expect.stringMatching(/^demo sandbox: .*DNS 127\.0\.0\.1:\d+ and SMTP 127\.0\.0\.1:\d+: \d+ mailboxes, \d+ catch-all domains, \d+ domains without mail/)]);
    const lines: string[] = [];
    expect(await startDemoSandbox({ DEMO_MAIL_SANDBOX: 'off' }, (line) => lines.push(line))).toBeNull();
    expect(await startDemoSandbox({ EMAIL_VERIFY_DNS_SERVERS: '192.0.2.1:53' }, (line) => lines.push(line))).toBeNull();
    expect(lines).toEqual([expect.stringContaining('demo mail sandbox off: search verifies through EMAIL_VERIFY_DNS_SERVERS=192.0.2.1:53')]);
    await expect(startDemoSandbox({ DEMO_MAIL_SANDBOX: 'maybe' }, () => undefined)).rejects.toThrow(ConfigError);
  });

  it('reveals of demo entities come back revealed (valid, catch_all) or no_contact_found, as the sandbox has their mail', async () => {
    const { mailboxes, catchAll, noMail } = sandbox.directory;
    const seen = new Map<string, number>();
    // search's verifier keeps a result per address: an address asked before is not asked again
    const asked = new Set<string>();
    let checkedConversations = 0;
    for (const lens of LENSES) {
      const page = await mesh.request('GET', `/search?lens=${lens}`, { key });
      expect(page.status).toBe(200);
      for (const hit of page.body.data.slice(0, 10)) {
        const [entity] = await mesh.query('search', 'SELECT email, phone, first_name, last_name, domain FROM entities WHERE id = $1', [hit.entity_id]);
        expect(entity.domain).toMatch(/\.example$/);
        // what a verifier must conclude from the sandbox's mail: the listed address, else the
        // candidates in the verifier's order, the first one the domain's server accepts
        const candidates: string[] = entity.email ? [entity.email] : candidateAddresses(entity.first_name, entity.last_name, entity.domain);
        const found = noMail.has(entity.domain) ? undefined : candidates.find((address) => catchAll.has(entity.domain) || mailboxes.has(address));
        const rcptsBefore = sandbox.rcpts.length;
        const fresh = candidates.every((address) => !asked.has(address));
        candidates.forEach((address) => asked.add(address));
        if (fresh) checkedConversations++;
        const res = await mesh.request('POST', '/reveals', { key, body: { entity_id: hit.entity_id } });
        expect(res.status).toBe(201);
        if (found) {
          const status = catchAll.has(entity.domain) ? 'catch_all' : 'valid';
          expect(res.body).toMatchObject({ status: 'revealed', email: found, email_status: status, credits_charged: 1, lead_id: expect.stringMatching(/^lead_/) });
          // the verifier held the SMTP conversation: RCPT for the address, then for a random one at the domain
          if (fresh) expect(sandbox.rcpts.slice(rcptsBefore)).toEqual(expect.arrayContaining([found, expect.stringMatching(new RegExp(`-probe@${entity.domain.replace(/\./g, '\\.')}$`))]));
          seen.set(status, (seen.get(status) ?? 0) + 1);
        } else {
          // no deliverable address: the phone the entity carries is still a verified contact (issue 14, item 2)
          const outcome = entity.phone
            ? { status: 'revealed', email: null, phone: entity.phone, credits_charged: 1, lead_id: expect.stringMatching(/^lead_/) }
            : { status: 'no_contact_found', email: null, credits_charged: 0, lead_id: null };
          expect(res.body).toMatchObject(outcome);
          // a domain without mail is never reached; a missing mailbox is refused by the server
          if (noMail.has(entity.domain)) expect(sandbox.rcpts.length).toBe(rcptsBefore);
          else if (fresh) expect(sandbox.rcpts.slice(rcptsBefore)).toEqual(candidates);
          const kind = entity.phone ? 'phone_only' : 'no_contact_found';
          seen.set(kind, (seen.get(kind) ?? 0) + 1);
        }
      }
    }
    expect([...seen.keys()].sort()).toEqual(expect.arrayContaining(['catch_all', 'no_contact_found', 'valid']));
    expect([...seen.keys()].every((kind) => ['catch_all', 'no_contact_found', 'valid', 'phone_only'].includes(kind))).toBe(true);
    expect(checkedConversations).toBeGreaterThan(30);
  });

  it('answers for the demo domains only: a real domain is refused, never said to have no mail', async () => {
    const resolver = new Resolver();
    resolver.setServers([sandbox.env.EMAIL_VERIFY_DNS_SERVERS]);
    await expect(resolver.resolveMx('example.com')).rejects.toMatchObject({ code: 'EREFUSED' });
    await expect(resolver.resolveMx('gmail.com')).rejects.toMatchObject({ code: 'EREFUSED' });
    await expect(resolver.resolveMx('nothing-here.example')).rejects.toMatchObject({ code: 'ENOTFOUND' });
    const [catchAllDomain] = sandbox.directory.catchAll;
    // one record, that exchange and priority (Node 24's resolver also adds `type: 'MX'` to each record)
    const records = await resolver.resolveMx(catchAllDomain);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ exchange: `mx.${catchAllDomain}`, priority: 10 });
    expect(await resolver.resolve4(`mx.${catchAllDomain}`)).toEqual(['127.0.0.1']);
  });
});
