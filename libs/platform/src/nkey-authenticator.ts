import { createPrivateKey, createPublicKey, KeyObject, sign } from 'node:crypto';
import { Authenticator, nkeys, NKeyAuth } from '@nats-io/transport-node';

/**
 * nats.js's `nkeyAuthenticator(seed)`, signing with node's own Ed25519 (OpenSSL) instead of
 * nkeys.js's tweetnacl. The answer is the same: Ed25519 signatures are deterministic, so for the
 * same seed and nonce both give the same `nkey` and `sig` (nkey-authenticator.spec.ts checks it on
 * random seeds and nonces). Why: nkeys.js derives the key pair from the seed in plain JavaScript
 * for the public key and again for every signature, three scalar multiplications a connect, and
 * at a process's start that code is not optimised yet: 10-100 ms of CPU a connect (measured
 * 2026-11-30, Node 24), and every service opens several connections as it starts, again at every
 * reconnect. Here the key is derived once, by OpenSSL, and a connect's signature costs well under
 * a millisecond. `authenticator` is nats.js's documented seam for this (ConnectionOptions).
 */
export function nkeyAuthenticator(seed: string | Uint8Array): Authenticator {
  const { nkey, privateKey } = nkeyOf(seed);
  return (nonce?: string): NKeyAuth => ({
    nkey,
    sig: nonce ? Buffer.from(sign(null, Buffer.from(nonce, 'utf8'), privateKey)).toString('base64') : '',
  });
}

/** The public key (`U…` for a user) of an NKEY seed: nkeys' `fromSeed(seed).getPublicKey()`, by OpenSSL. */
export function nkeyPublicKey(seed: string | Uint8Array): string {
  return nkeyOf(seed).nkey;
}

function nkeyOf(seed: string | Uint8Array): { nkey: string; privateKey: KeyObject } {
  const encoded = typeof seed === 'string' ? new TextEncoder().encode(seed) : seed;
  nkeys.fromSeed(encoded); // validates the seed's encoding, checksum and prefix (throws NKeysError)
  const decoded = base32Decode(encoded); // two prefix bytes, the 32-byte Ed25519 seed, the checksum
  const role = ((decoded[0] & 7) << 5) | (decoded[1] >> 3);
  const privateKey = ed25519PrivateKey(decoded.subarray(2, 34));
  return { nkey: encodePublicKey(role, rawPublicKey(privateKey)), privateKey };
}

/** PKCS #8 DER of an Ed25519 private key up to its 32-byte seed (RFC 8410, section 7). */
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

function ed25519PrivateKey(rawSeed: Uint8Array): KeyObject {
  return createPrivateKey({ key: Buffer.concat([ED25519_PKCS8_PREFIX, rawSeed]), format: 'der', type: 'pkcs8' });
}

function rawPublicKey(privateKey: KeyObject): Buffer {
  const jwk = createPublicKey(privateKey).export({ format: 'jwk' });
  return Buffer.from(jwk.x as string, 'base64url');
}

/** A public key as nkeys writes it: role byte, the 32 key bytes, CRC-16 (little-endian), base32 without padding. */
function encodePublicKey(role: number, key: Uint8Array): string {
  const raw = new Uint8Array(1 + key.length + 2);
  raw[0] = role;
  raw.set(key, 1);
  const check = crc16(raw.subarray(0, 1 + key.length));
  raw[1 + key.length] = check & 0xff;
  raw[2 + key.length] = check >> 8;
  return base32Encode(raw);
}

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

function base32Encode(bytes: Uint8Array): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

function base32Decode(text: Uint8Array): Uint8Array {
  const out: number[] = [];
  let bits = 0;
  let value = 0;
  for (const char of text) {
    const index = BASE32.indexOf(String.fromCharCode(char));
    if (index < 0) throw new Error('not base32');
    value = ((value << 5) | index) & 0xffff;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Uint8Array.from(out);
}

/** CRC-16/XMODEM (polynomial 0x1021, initial 0), nkeys' checksum. */
function crc16(bytes: Uint8Array): number {
  let crc = 0;
  for (const byte of bytes) {
    crc ^= byte << 8;
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}
