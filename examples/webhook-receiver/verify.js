'use strict';
// Verifies a Service-Signature header the way the spec tells receivers to (Events > Signature):
// split on commas, read t and every v1, reject when t is more than 300 s from our clock,
// HMAC-SHA256 of `${t}.${rawBody}` keyed by the whole secret (including "whsec_"), and compare
// with each v1 in constant time; accept if any matches.
const { createHmac, timingSafeEqual } = require('node:crypto');

const TOLERANCE_SECONDS = 300;

function verifySignature(rawBody, header, secret, nowSeconds = Math.floor(Date.now() / 1000)) {
  if (typeof header !== 'string' || header === '') return { ok: false, reason: 'no Service-Signature header' };
  let t;
  const v1 = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const name = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (name === 't') t = value;
    else if (name === 'v1') v1.push(value);
  }
  if (!t || !/^\d+$/.test(t)) return { ok: false, reason: 'no timestamp' };
  if (Math.abs(nowSeconds - Number(t)) > TOLERANCE_SECONDS) return { ok: false, reason: 'timestamp outside the tolerance' };
  if (v1.length === 0) return { ok: false, reason: 'no v1 signature' };
  const expected = createHmac('sha256', secret).update(`${t}.`).update(rawBody).digest();
  const match = v1.some((candidate) => {
    if (!/^[0-9a-f]{64}$/i.test(candidate)) return false;
    return timingSafeEqual(expected, Buffer.from(candidate, 'hex'));
  });
  return match ? { ok: true } : { ok: false, reason: 'no signature matches' };
}

module.exports = { verifySignature, TOLERANCE_SECONDS };
