import { createHash } from 'node:crypto';
import { seedEntity } from './seed';

describe('seedEntity', () => {
  it('makes the same entity for the same number as it always did (re-seeding updates, never duplicates)', () => {
    // the digest of these entities as the generator made them before it kept its strings per argument (4ebc3c0)
    const digest = createHash('sha256');
    for (const n of [...Array.from({ length: 20_000 }, (_, k) => k), 999_999, 1_234_567, 29_999_999]) digest.update(`${JSON.stringify(seedEntity(n))}\n`);
    expect(digest.digest('hex')).toBe('f5a78377de3b298722df712e409080aa041fa91e37e9e26de78ab6e7df7ad06d');
    expect(seedEntity(3).details).toMatchObject({ deadline: '2027-01-07' });
    expect(seedEntity(1).details).toMatchObject({ last_filing_at: '2024-01-25' });
  });
});
