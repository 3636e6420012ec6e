import { ConfigError } from '@app/platform';
import { loadSearchConfig } from '../search.config';
import { searchIndexOf } from './index-layout';

describe('SEARCH_INDEX', () => {
  it.each([undefined, '', 'memory'])('%j is the in-memory index, the one there is', (raw) => {
    expect(searchIndexOf(raw)).toBe('memory');
    expect(() => loadSearchConfig({ SEARCH_INDEX: raw })).not.toThrow();
  });

  it.each(['rum', 'bands'])('%s, removed (issue 37 item 4), is refused as a configuration error that says so and what to set instead, never run as another layout', (raw) => {
    expect(() => searchIndexOf(raw)).toThrow(ConfigError);
    expect(() => loadSearchConfig({ SEARCH_INDEX: raw })).toThrow(ConfigError);
    expect(() => searchIndexOf(raw)).toThrow(new RegExp(`^SEARCH_INDEX=${raw} was removed \\(.*\\): unset SEARCH_INDEX \\(or set memory\\); search drops the removed layout's indexes`));
  });

  it.each(['elastic', 'MEMORY', 'bands ', 'gin'])('refuses %j, naming the value it takes', (raw) => {
    expect(() => searchIndexOf(raw)).toThrow(ConfigError);
    expect(() => searchIndexOf(raw)).toThrow(`SEARCH_INDEX must be memory (or unset), got "${raw}"`);
  });
});
