import { normalizeDomain } from './company-domain';

describe('normalizeDomain', () => {
  it.each([
    ['example.com', 'example.com'],
    ['Example.COM', 'example.com'],
    ['  example.com  ', 'example.com'],
    ['https://example.com', 'example.com'],
    ['HTTP://Example.com', 'example.com'],
    ['ftp://files.example.org/', 'files.example.org'],
    ['www.example.com', 'example.com'],
    ['https://WWW.Example.com', 'example.com'],
    ['example.com.', 'example.com'],
    ['example.com...', 'example.com'],
    ['example.com/about/team', 'example.com'],
    ['https://www.example.com/path?x=1#top', 'example.com'],
    ['example.com?ref=ad', 'example.com'],
    ['example.com:8080', 'example.com'],
    ['https://example.com:443/pricing', 'example.com'],
    ['HTTP://WWW.Sub.Example.co.uk:443/a#b', 'sub.example.co.uk'],
    ['api.example.com', 'api.example.com'],
    ['my-company.io', 'my-company.io'],
    ['xn--bcher-kva.example', 'xn--bcher-kva.example'],
    // www is itself the registered name here, not a host in front of it
    ['www.com', 'www.com'],
  ])('%p -> %p', (raw, expected) => {
    expect(normalizeDomain(raw)).toBe(expected);
  });

  it('gives one canonical form however the same domain is written', () => {
    const spellings = ['acme.io', 'ACME.IO', 'www.acme.io', 'https://www.acme.io/', 'http://acme.io:80/x', 'acme.io.'];
    expect(new Set(spellings.map(normalizeDomain))).toEqual(new Set(['acme.io']));
  });

  it.each([
    [''],
    ['   '],
    ['localhost'],
    ['not a domain'],
    ['exa_mple.com'],
    ['a..b.com'],
    ['-example.com'],
    ['example-.com'],
    ['.com'],
    ['https://'],
    ['http://[::1]/'],
    ['user@example.com'],
  ])('%p is not a domain -> null', (raw) => {
    expect(normalizeDomain(raw)).toBeNull();
  });
});
