import { randomBytes } from 'node:crypto';
import { prepareDatabaseTemplates } from './harness';

/**
 * The e2e project's globalSetup (jest.config.js): the services' template databases
 * (test/harness.ts), and the name of this run, which the databases of its shared meshes carry
 * (TestMesh.shared), so that its globalTeardown drops those and no other run's.
 */
export default async function setup(): Promise<void> {
  process.env.TEST_MESH_RUN ||= randomBytes(4).toString('hex');
  await prepareDatabaseTemplates();
}
