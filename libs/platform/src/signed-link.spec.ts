import { exportDownloadUrl, signExportLink, verifyExportLink } from './signed-link';

const SECRET = 'test-secret';
const NOW = Date.parse('2026-11-21T12:00:00Z');
const LATER = Math.floor(NOW / 1000) + 3600;

describe('signed export links', () => {
  it('the URL carries the expiry in unix seconds and the hex HMAC-SHA256 of "<id>.<expires>"', () => {
    const url = new URL(exportDownloadUrl({ signingSecret: SECRET, publicApiUrl: 'https://api.example.com/api/v1' }, 'exp_1', new Date(LATER * 1000 + 999)));
    expect(url.origin + url.pathname).toBe('https://api.example.com/api/v1/exports/exp_1/download');
    expect(url.searchParams.get('expires')).toBe(String(LATER));
    expect(url.searchParams.get('signature')).toMatch(/^[0-9a-f]{64}$/);
    expect(url.searchParams.get('signature')).toBe(signExportLink('exp_1', LATER, SECRET));
    expect(verifyExportLink('exp_1', url.searchParams.get('expires'), url.searchParams.get('signature'), SECRET, NOW)).toBe(true);
  });

  it('refuses an expired link, even correctly signed', () => {
    const past = Math.floor(NOW / 1000) - 1;
    expect(verifyExportLink('exp_1', String(past), signExportLink('exp_1', past, SECRET), SECRET, NOW)).toBe(false);
    const exactlyNow = Math.floor(NOW / 1000);
    expect(verifyExportLink('exp_1', String(exactlyNow), signExportLink('exp_1', exactlyNow, SECRET), SECRET, NOW)).toBe(false);
  });

  it('refuses an altered signature, expiry, id or secret', () => {
    const signature = signExportLink('exp_1', LATER, SECRET);
    const flipped = (signature[0] === 'a' ? 'b' : 'a') + signature.slice(1);
    expect(verifyExportLink('exp_1', String(LATER), flipped, SECRET, NOW)).toBe(false);
    expect(verifyExportLink('exp_1', String(LATER + 1), signature, SECRET, NOW)).toBe(false);
    expect(verifyExportLink('exp_2', String(LATER), signature, SECRET, NOW)).toBe(false);
    expect(verifyExportLink('exp_1', String(LATER), signature, 'other-secret', NOW)).toBe(false);
    expect(verifyExportLink('exp_1', String(LATER), signature.toUpperCase(), SECRET, NOW)).toBe(true);
  });

  it('refuses malformed values without throwing', () => {
    const signature = signExportLink('exp_1', LATER, SECRET);
    for (const [expires, sig] of [
      [undefined, signature], [String(LATER), undefined], ['abc', signature], [`0${LATER}`, signature], [`${LATER}.0`, signature],
      [[String(LATER)], signature], [String(LATER), signature.slice(2)], [String(LATER), `${signature}00`], [String(LATER), 'zz'.repeat(32)],
    ] as [unknown, unknown][]) {
      expect(verifyExportLink('exp_1', expires, sig, SECRET, NOW)).toBe(false);
    }
  });
});
