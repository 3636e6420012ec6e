import { ConfigError } from '@app/platform';
import { loadSearchConfig } from '../search.config';
import { searchIndexOf } from './index-layout';

describe('SEARCH_INDEX', () => {
  it.each([
    // the default by measurement (issue 37 item 4; docs/decisions.md, "Search index chosen by measurement")
    [undefined, 'memory'],
    ['', 'memory'],
    ['bands', 'bands'],
    ['memory', 'memory'],
  ])('%j is %j', (raw, layout) => {
    expect(searchIndexOf(raw)).toBe(layout);
    expect(loadSearchConfig({ SEARCH_INDEX: raw }).index).toBe(layout);
  });

  it('rum, removed (issue 37 item 4), is refused as a configuration error that says so and what to set instead, never run as another layout', () => {
    expect(() => searchIndexOf('rum')).toThrow(ConfigError);
    expect(() => loadSearchConfig({ SEARCH_INDEX: 'rum' })).toThrow(ConfigError);
    expect(() => searchIndexOf('rum')).toThrow(/^SEARCH_INDEX=rum was removed \(.*\): unset SEARCH_INDEX \(or set bands\); search then drops its RUM indexes/);
  });

  it.each(['elastic', 'BANDS', 'rum ', 'gin'])('refuses %j, naming the values it takes', (raw) => {
    expect(() => searchIndexOf(raw)).toThrow(ConfigError);
    expect(() => searchIndexOf(raw)).toThrow(`SEARCH_INDEX must be bands or memory, got "${raw}"`);
  });
});
