import { ConfigError } from '@app/platform/config';

/**
 * SEARCH_INDEX: `memory` (also when unset), the one index there is: an inverted index in each
 * search process (MemorySearchIndex; docs/decisions.md, "Search index chosen by measurement").
 * The two layouts measured against it were deleted (issue 37, item 4): `rum` and `bands` are
 * refused with what to do instead, so that a deployment that still asks for one does not start as
 * if it had asked for something else.
 */
export function searchIndexOf(raw: string | undefined): 'memory' {
  if (raw === undefined || raw === '' || raw === 'memory') return 'memory';
  if (raw === 'rum' || raw === 'bands') {
    throw new ConfigError(`SEARCH_INDEX=${raw} was removed (the in-memory index won the measurements, docs/decisions.md): ` +
      'unset SEARCH_INDEX (or set memory); search drops the removed layout\'s indexes by a migration at its next start or `npm run migrate -- search` ' +
      '(docs/runbooks.md, "Moving off bands")');
  }
  throw new ConfigError(`SEARCH_INDEX must be memory (or unset), got "${raw}"`);
}
