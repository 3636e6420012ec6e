import { missingLines, shapeDifferences, shellBlocks } from './doc-blocks';

describe('runnable docs: blocks and comparison by shape', () => {
  it('finds the bash blocks, the output block right after each, and the test note above one', () => {
    const md = [
      '# T', '', '```bash', 'echo a', '```', '', '```json', '{"a":1}', '```', '', 'prose', '', '```bash', 'echo b', '```', '', 'between', '',
      '```text', 'not its output', '```', '<!-- quickstart-test: started by the test -->', '```bash', 'npm start', '```',
    ].join('\n');
    expect(shellBlocks(md)).toEqual([
      { line: 3, code: 'echo a', expected: { lang: 'json', text: '{"a":1}', line: 7 } },
      { line: 13, code: 'echo b' },
      { line: 23, code: 'npm start', note: 'started by the test' },
    ]);
  });

  it('IDs keep their prefix, times are times, API words are equal, arrays keep their length, objects have the fields shown', () => {
    const shown = { id: 'lead_01m8dvkjrahsSwYs9JM0Rb4C', object: 'lead', status: 'revealed', email: null, created_at: '2026-11-27T06:38:10.699Z', n: 1, ok: true, name: 'Ada', tags: [] };
    expect(shapeDifferences(shown, { ...shown, id: 'lead_zzzzzzzzzz', created_at: '2027-01-01T00:00:00Z', name: 'Grace', n: 7, extra: 1 })).toEqual([]);
    expect(shapeDifferences(shown, { ...shown, id: 'co_zzzzzzzzzz', status: 'no_contact_found', email: 'a@b.c', tags: ['x'], ok: false, n: '1' })).toEqual([
      '$.id: "co_zzzzzzzzzz" where the docs show an ID lead_…', '$.status: "no_contact_found" where the docs show "revealed"', '$.email: "a@b.c" where the docs show null',
      '$.n: "1" where the docs show a number', '$.ok: false where the docs show true', '$.tags: 1 items where the docs show 0',
    ]);
    const { status, ...withoutStatus } = shown;
    void status;
    expect(shapeDifferences(shown, withoutStatus)).toEqual(['$.status: missing']);
    expect(shapeDifferences({ object: 'credit_balance' }, { object: 'credit_balance' })).toEqual([]);
    expect(shapeDifferences({ secret: 'whsec_abc' }, { secret: 'sk_x' })).toEqual(['$.secret: not a whsec_ secret']);
  });

  it('text: every shown line (IDs and times generic) is in the output, which may have more', () => {
    const shown = '2026-11-27T06:38:10.625Z lead.created evt_01m8dvkjp1mmteiKHWPCbXHI lead_01m8dvkjnrRvq6g6u096fOHS\nwebhook receiver on port 8443';
    expect(missingLines(shown, 'webhook receiver on port 8443\n2026-12-01T00:00:00.000Z lead.created evt_01aaaaaa lead_01bbbbbb\nextra')).toEqual([]);
    expect(missingLines(shown, 'webhook receiver on port 8443\n2026-12-01T00:00:00.000Z reveal.completed evt_01aaaaaa rev_01bbbbbb')).toEqual([
      '<time> lead.created evt_… lead_…',
    ]);
  });
});
