import { hash } from 'node:crypto';
import { API_KEY_PREFIX, KeyMode } from '@app/contracts';
import { randomToken } from '@app/platform/ids';

const KEY_PATTERN = /^svc_(live|test)_[A-Za-z0-9]{24,128}$/;

export function generateApiKey(mode: KeyMode): string {
  return `${API_KEY_PREFIX[mode]}${randomToken(32)}`;
}

/**
 * Keys are stored only as this hash (SHA-256, hex); they carry 190 random bits, so a fast hash
 * is enough. Node's one-shot `hash`, since every request hashes its key: the same digest as
 * createHash().update().digest() without the hash object.
 */
export function hashApiKey(key: string): string {
  return hash('sha256', key, 'hex');
}

/** The key from `Authorization: Bearer <key>`, or null when the header is missing or malformed. */
export function parseBearer(header: string | undefined): string | null {
  if (!header) return null;
  const match = /^Bearer ([^\s]+)$/.exec(header.trim());
  if (!match || !KEY_PATTERN.test(match[1])) return null;
  return match[1];
}
