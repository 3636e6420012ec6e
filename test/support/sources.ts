import { SOURCE_PROVIDERS } from '@app/contracts/enums';

/** Reserved example domains (RFC 2606) at their root: the fallback a made-up Source would cite. */
const PLACEHOLDER_HOSTS = new Set(['example.com', 'www.example.com', 'example.org', 'www.example.org', 'example.net', 'www.example.net']);

/**
 * Every Source names a provider of the spec's enumeration and an absolute http(s) URL that is not a
 * placeholder (empty, relative, or the bare root of a reserved example domain), backs a field with a
 * value, and says when it was fetched.
 */
export function expectRealSources(sources: unknown): void {
  expect(Array.isArray(sources)).toBe(true);
  for (const source of sources as Record<string, unknown>[]) {
    expect(source).toEqual({
      field: expect.stringMatching(/\S/), value: expect.stringMatching(/\S/), source_url: expect.any(String),
      provider: expect.any(String), fetched_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/),
    });
    expect({ source, provider_in_enum: (SOURCE_PROVIDERS as readonly string[]).includes(source.provider as string) }).toEqual({ source, provider_in_enum: true });
    let url: URL | null = null;
    try {
      url = new URL(source.source_url as string);
    } catch {
      url = null;
    }
    const real = url !== null && ['http:', 'https:'].includes(url.protocol) && url.hostname !== ''
      && !(PLACEHOLDER_HOSTS.has(url.hostname) && url.pathname === '/' && url.search === '');
    expect({ source, real_url: real }).toEqual({ source, real_url: true });
  }
}
