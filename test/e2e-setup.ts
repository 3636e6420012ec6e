import { prepareDatabaseTemplates } from './harness';

/** The e2e project's globalSetup (jest.config.js): the services' template databases (test/harness.ts). */
export default async function setup(): Promise<void> {
  await prepareDatabaseTemplates();
}
