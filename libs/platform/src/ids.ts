import { randomBytes } from 'node:crypto';

const TIME_ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
const RANDOM_ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Fixed-width base32 of the millisecond clock: byte order equals time order. */
function timePart(ms: number): string {
  let out = '';
  for (let i = 0; i < 10; i++) {
    out = TIME_ALPHABET[ms % 32] + out;
    ms = Math.floor(ms / 32);
  }
  return out;
}

/**
 * Bytes of the CSPRNG drawn 4 KiB at a time and handed out once each: one draw serves a few
 * hundred ids instead of a `randomBytes` call (and a buffer) per id on every request's path. No
 * byte is handed out twice.
 */
const RANDOM_POOL_BYTES = 4096;
let randomPool = Buffer.alloc(0);
let randomAt = 0;

/** Where the next `count` unused bytes of the pool start (a fresh draw when fewer are left); they are taken. */
function takeRandom(count: number): number {
  if (randomAt + count > randomPool.length) {
    randomPool = randomBytes(RANDOM_POOL_BYTES);
    randomAt = 0;
  }
  const at = randomAt;
  randomAt += count;
  return at;
}

function randomByte(): number {
  return randomPool[takeRandom(1)];
}

export function randomToken(length: number): string {
  let out = '';
  while (out.length < length) {
    const b = randomByte();
    // 248 is the largest multiple of 62 below 256: rejecting above it keeps the draw uniform.
    if (b < 248) out += RANDOM_ALPHABET[b % 62];
  }
  return out;
}

/**
 * `prefix` + 10 time characters + 14 random ones. IDs of one type sort by creation time
 * (compare them with the "C" collation), which gives lists a one-column keyset.
 */
export function newId(prefix: string, now: number = Date.now()): string {
  return `${prefix}${timePart(now)}${randomToken(14)}`;
}

/** `count` ids as `newId` makes them, for one instant (bulk inserts); the random bytes come from the shared pool. */
export function newIds(prefix: string, count: number, now: number = Date.now()): string[] {
  const head = `${prefix}${timePart(now)}`;
  return Array.from({ length: count }, () => head + randomToken(14));
}

