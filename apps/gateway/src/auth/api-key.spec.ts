import { createHash } from 'node:crypto';
import { generateApiKey, hashApiKey } from './api-key';

describe('hashApiKey', () => {
  it('is the SHA-256 hex digest the api_keys table stores (keys created by any earlier release still match)', () => {
    for (const key of [generateApiKey('live'), generateApiKey('test'), 'svc_live_x', '', 'ü-not-ascii']) {
      expect(hashApiKey(key)).toBe(createHash('sha256').update(key).digest('hex'));
    }
    // SHA-256's published test vector: a change of algorithm or encoding cannot pass unnoticed
    expect(hashApiKey('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});
