/** Published API versions, oldest first. The last one is the current version. */
export const API_VERSIONS = ['2026-09-28'] as const;
export type ApiVersion = (typeof API_VERSIONS)[number];
export const CURRENT_API_VERSION: ApiVersion = API_VERSIONS[API_VERSIONS.length - 1];
export const VERSION_HEADER = 'service-version';
