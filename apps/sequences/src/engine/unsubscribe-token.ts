import { createHmac, timingSafeEqual } from 'node:crypto';

/** `<enrollment id>.<HMAC-SHA256 of it, base64url>`: the link is the credential, no API key. */
export function unsubscribeToken(enrollmentId: string, secret: string): string {
  return `${enrollmentId}.${createHmac('sha256', `unsubscribe:${secret}`).update(enrollmentId).digest('base64url')}`;
}

export function verifyUnsubscribeToken(token: string, secret: string): string | null {
  const dot = token.lastIndexOf('.');
  if (dot <= 0) return null;
  const id = token.slice(0, dot);
  const expected = Buffer.from(unsubscribeToken(id, secret));
  const given = Buffer.from(token);
  return expected.length === given.length && timingSafeEqual(expected, given) ? id : null;
}
