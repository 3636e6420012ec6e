import { envInt } from '@app/platform';
import { ExportsConfig, loadExportsConfig } from './exports/exports.config';

/** The crm service's own settings (docs/configuration.md), read once at start-up. */
export interface CrmConfig {
  /** How long creating a company waits for search's organisation record (ORG_MATCH_TIMEOUT_MS). */
  orgMatchTimeoutMs: number;
  exports: ExportsConfig;
}

export const CRM_CONFIG = Symbol('CRM_CONFIG');

export function loadCrmConfig(env: NodeJS.ProcessEnv = process.env): CrmConfig {
  return {
    orgMatchTimeoutMs: envInt(env, 'ORG_MATCH_TIMEOUT_MS', 1_000, 50, 30_000),
    exports: loadExportsConfig(env),
  };
}
