import { API_VERSIONS, ApiVersion } from '@app/contracts';

/**
 * A breaking change made in `version`: `downgrade` rewrites a response of the newer shape into
 * the shape clients pinned to the previous version expect. None exist yet: 2026-09-28 is the
 * first version. Adding a version means adding its date to API_VERSIONS and its changes here.
 */
export interface VersionChange {
  version: ApiVersion;
  description: string;
  downgrade: (body: unknown) => unknown;
}

export const VERSION_CHANGES: VersionChange[] = [];

export function isKnownVersion(value: string): value is ApiVersion {
  return (API_VERSIONS as readonly string[]).includes(value);
}

/** Whether a response must be reshaped for a client pinned to `target`. */
export function hasChangesAfter(target: ApiVersion, changes: VersionChange[] = VERSION_CHANGES): boolean {
  return changes.some((change) => change.version > target);
}

/** Renders a response of the current version for a client pinned to `target`. */
export function renderForVersion(body: unknown, target: ApiVersion, changes: VersionChange[] = VERSION_CHANGES): unknown {
  return changes
    .filter((change) => change.version > target)
    .sort((a, b) => (a.version < b.version ? 1 : -1))
    .reduce((shaped, change) => change.downgrade(shaped), body);
}
