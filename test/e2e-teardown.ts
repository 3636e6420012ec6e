import { MeshPool, stopSharedMeshes } from './harness';

/**
 * The e2e project's globalTeardown (jest.config.js): stops the shared meshes still running in
 * this process (with --runInBand the files ran here) and drops the databases of every shared
 * mesh of the run. The pool is the one the test environment hands the files (Node's module cache,
 * not jest's registry).
 */
export default async function teardown(): Promise<void> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const pool = require('./mesh-pool') as MeshPool;
  await stopSharedMeshes(pool);
}
