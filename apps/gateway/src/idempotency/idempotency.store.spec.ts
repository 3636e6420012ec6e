import { requestFingerprint } from './idempotency.store';

describe('requestFingerprint', () => {
  const body = { full_name: 'Ada Lovelace', tags: ['vip', 'math'], custom_fields: { a: 1, b: 'x' }, email: 'ada@example.com' };
  const base = requestFingerprint('POST', '/api/v1/leads', body);

  it('is a sha256 hex digest', () => {
    expect(base).toMatch(/^[0-9a-f]{64}$/);
  });

  it('does not depend on key order, at any depth', () => {
    const reordered = { email: 'ada@example.com', custom_fields: { b: 'x', a: 1 }, tags: ['vip', 'math'], full_name: 'Ada Lovelace' };
    expect(requestFingerprint('POST', '/api/v1/leads', reordered)).toBe(base);
  });

  it('does not depend on whitespace in the JSON that was sent', () => {
    const compact = '{"full_name":"Ada Lovelace","tags":["vip","math"],"custom_fields":{"a":1,"b":"x"},"email":"ada@example.com"}';
    const spaced = `{\n  "email" : "ada@example.com",\n\t"tags": [ "vip" ,"math" ],\r\n "custom_fields": { "b": "x", "a": 1 },  "full_name":"Ada Lovelace"\n}\n`;
    expect(requestFingerprint('POST', '/api/v1/leads', JSON.parse(compact))).toBe(base);
    expect(requestFingerprint('POST', '/api/v1/leads', JSON.parse(spaced))).toBe(base);
  });

  it('is the same for a missing body and a null one', () => {
    expect(requestFingerprint('POST', '/api/v1/x', undefined)).toBe(requestFingerprint('POST', '/api/v1/x', null));
  });

  it.each([
    ['a different value', { ...body, full_name: 'Ada King' }],
    ['a nested value', { ...body, custom_fields: { a: 2, b: 'x' } }],
    ['an extra field', { ...body, title: 'Countess' }],
    ['a missing field', { full_name: body.full_name, tags: body.tags, custom_fields: body.custom_fields }],
    ['array order', { ...body, tags: ['math', 'vip'] }],
    ['a number sent as a string', { ...body, custom_fields: { a: '1', b: 'x' } }],
    ['null instead of a value', { ...body, email: null }],
    ['whitespace inside a value', { ...body, full_name: 'Ada  Lovelace' }],
    ['an empty body', {}],
  ])('changes with %s', (_label, other) => {
    expect(requestFingerprint('POST', '/api/v1/leads', other)).not.toBe(base);
  });

  it.each([
    ['another path', 'POST', '/api/v1/suppressions'],
    ['another query string', 'POST', '/api/v1/leads?x=1'],
    ['another method', 'PUT', '/api/v1/leads'],
  ])('changes with %s', (_label, method, url) => {
    expect(requestFingerprint(method, url, body)).not.toBe(base);
  });
});
