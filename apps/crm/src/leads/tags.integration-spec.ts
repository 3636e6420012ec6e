import { SUBJECTS } from '@app/contracts';
import { TestMesh } from '../../../../test/harness';

/** Tags created by concurrent lead creates, straight over NATS (no gateway rate limit in the way). */
describe('crm tags under concurrency', () => {
  let mesh: TestMesh;

  beforeAll(async () => {
    mesh = await TestMesh.start(['crm']);
  });
  afterAll(() => mesh?.close());

  const shuffled = <T>(items: T[]): T[] => {
    const copy = [...items];
    for (let i = copy.length - 1; i > 0; i--) {
      const j = Math.floor(Math.random() * (i + 1));
      [copy[i], copy[j]] = [copy[j], copy[i]];
    }
    return copy;
  };

  it('creates naming the same new tags in different orders never deadlock: every one succeeds and keeps its order', async () => {
    const ctx = { workspace_id: 'ws_tags' };
    for (let round = 0; round < 10; round++) {
      const names = Array.from({ length: 6 }, (_, i) => `round-${round}-tag-${i}`);
      const orders = Array.from({ length: 20 }, () => shuffled(names));
      const outcomes = await Promise.all(
        orders.map((tags, i) => mesh.rpc(SUBJECTS.crm.leadsCreate, ctx, { full_name: `Round ${round} lead ${i}`, tags })),
      );
      expect(outcomes.map((o) => o.err)).toEqual(Array(20).fill(undefined));
      expect(outcomes.map((o) => o.response.tags)).toEqual(orders);
      const rows = await mesh.query('crm', 'SELECT count(*)::int AS n FROM tags WHERE workspace_id = $1 AND name = ANY($2)', ['ws_tags', names]);
      expect(rows).toEqual([{ n: 6 }]);
    }
  });
});
