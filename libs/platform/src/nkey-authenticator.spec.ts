import { randomBytes } from 'node:crypto';
import { nkeyAuthenticator as natsNkeyAuthenticator, nkeys } from '@nats-io/transport-node';
import { nkeyAuthenticator, nkeyPublicKey } from './nkey-authenticator';

describe('nkeyAuthenticator (node crypto)', () => {
  const creators = { user: nkeys.createUser, account: nkeys.createAccount, operator: nkeys.createOperator, server: nkeys.createServer };

  it.each(Object.entries(creators))('answers a nonce exactly as nats.js does, for %s seeds', (_role, create) => {
    // three seeds a role: nats.js's side signs in tweetnacl, about 100 ms of CPU a call in a fresh
    // process (the reason for this module), so more would cost the unit tier seconds, not coverage
    for (let i = 0; i < 3; i++) {
      const seed = create().getSeed();
      const ours = nkeyAuthenticator(seed);
      const theirs = natsNkeyAuthenticator(seed);
      for (const nonce of [randomBytes(16).toString('base64url'), 'ñ-ünïcödé']) expect(ours(nonce)).toEqual(theirs(nonce));
      expect(ours()).toEqual(theirs());
      expect(nkeyPublicKey(seed)).toBe(nkeys.fromSeed(seed).getPublicKey());
    }
  });

  it('takes the seed as text, as the settings hold it', () => {
    const pair = nkeys.createUser();
    const text = new TextDecoder().decode(pair.getSeed());
    expect(nkeyAuthenticator(text)('n0nce')).toEqual({ nkey: pair.getPublicKey(), sig: Buffer.from(pair.sign(new TextEncoder().encode('n0nce'))).toString('base64') });
  });

  it('whose signature the public key verifies', () => {
    const pair = nkeys.createUser();
    const auth = nkeyAuthenticator(pair.getSeed())('the server nonce') as { nkey: string; sig: string };
    expect(nkeys.fromPublic(auth.nkey).verify(new TextEncoder().encode('the server nonce'), Buffer.from(auth.sig, 'base64'))).toBe(true);
    expect(nkeys.fromPublic(auth.nkey).verify(new TextEncoder().encode('another nonce'), Buffer.from(auth.sig, 'base64'))).toBe(false);
  });

  it('refuses what is not a seed, as nkeys does', () => {
    const seed = new TextDecoder().decode(nkeys.createUser().getSeed());
    expect(() => nkeyAuthenticator('SUnotaseed')).toThrow();
    // one character of the key changed: the checksum (CRC-16) no longer matches (the last character
    // is not used: two of its five bits are padding, so changing it may leave the bytes as they were)
    const at = 20;
    expect(() => nkeyAuthenticator(`${seed.slice(0, at)}${seed[at] === 'A' ? 'B' : 'A'}${seed.slice(at + 1)}`)).toThrow();
    expect(() => nkeyAuthenticator(nkeys.createUser().getPublicKey())).toThrow(); // a public key, not a seed
  });
});
