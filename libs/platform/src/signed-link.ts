import { createHmac, timingSafeEqual } from 'node:crypto';
import { secretSetting } from './config';

/**
 * Signed download links of exports. The link is the credential (like a pre-signed S3 URL or a
 * Stripe file link): `<base>/exports/<id>/download?expires=<unix seconds>&signature=<hex>`, the
 * signature an HMAC-SHA256 of `<id>.<expires>` under EXPORT_SIGNING_SECRET, which crm (signs)
 * and the gateway (checks) share.
 */

/** Used when EXPORT_SIGNING_SECRET is unset: fine on a laptop, never in production. */
export const DEV_EXPORT_SIGNING_SECRET = 'dev-only-export-signing-secret-change-me';

export interface ExportLinkConfig {
  signingSecret: string;
  /** Public base of the API, without a trailing slash, e.g. https://api.example.com/api/v1. */
  publicApiUrl: string;
}

/** Read at start-up by crm and the gateway; in production a missing secret refuses to start. */
export function loadExportLinkConfig(env: NodeJS.ProcessEnv = process.env): ExportLinkConfig {
  const secret = secretSetting(env, 'EXPORT_SIGNING_SECRET', DEV_EXPORT_SIGNING_SECRET);
  const base = env.PUBLIC_API_URL || `http://127.0.0.1:${env.PORT || 3000}/api/v1`;
  return { signingSecret: secret, publicApiUrl: base.replace(/\/+$/, '') };
}

export function signExportLink(id: string, expiresUnix: number, secret: string): string {
  return createHmac('sha256', secret).update(`${id}.${expiresUnix}`).digest('hex');
}

export function exportDownloadUrl(config: ExportLinkConfig, id: string, expiresAt: Date): string {
  const expires = Math.floor(expiresAt.getTime() / 1000);
  const signature = signExportLink(id, expires, config.signingSecret);
  return `${config.publicApiUrl}/exports/${encodeURIComponent(id)}/download?expires=${expires}&signature=${signature}`;
}

/**
 * True when `signature` is the link's HMAC and `expires` (unix seconds, as sent) is still in
 * the future. Malformed values are simply false: a tampered link is indistinguishable from an
 * unknown one.
 */
export function verifyExportLink(
  id: string, expires: unknown, signature: unknown, secret: string, nowMs: number = Date.now(),
): boolean {
  if (typeof expires !== 'string' || !/^[1-9]\d{0,11}$/.test(expires)) return false;
  if (typeof signature !== 'string' || !/^[0-9a-f]{64}$/i.test(signature)) return false;
  const expected = Buffer.from(signExportLink(id, Number(expires), secret), 'hex');
  const given = Buffer.from(signature, 'hex');
  if (!timingSafeEqual(expected, given)) return false;
  return Number(expires) * 1000 > nowMs;
}
