/**
 * Three projects, one per tier of tests (CONVENTIONS.md, "Tests, in three layers"):
 * - unit: `*.spec.ts`, no PostgreSQL, no NATS, no built dist/, no peer servers; its setup points
 *   DATABASE_URL, PGHOST and NATS_URL at nothing, so a spec that reaches for either fails there;
 * - integration: `*.integration-spec.ts`, one service or tool against real PostgreSQL, NATS or
 *   local peers;
 * - e2e: `*.e2e-spec.ts`, the whole mesh (or a part of it) started from dist/.
 * `npm test` runs all three; `npm run test:unit`, `test:integration`, `test:e2e` run one.
 */
const shared = {
  testEnvironment: 'node',
  roots: ['<rootDir>/apps', '<rootDir>/libs', '<rootDir>/test', '<rootDir>/tools', '<rootDir>/packages'],
  transform: { '^.+\\.(t|j)s$': ['@swc/jest'] },
  transformIgnorePatterns: ['/node_modules/(?!(@nestjs|@nats-io|uid|load-esm|file-type|@standard-schema)/)'],
  moduleNameMapper: {
    '^@app/contracts$': '<rootDir>/libs/contracts/src',
    '^@app/contracts/(.*)$': '<rootDir>/libs/contracts/src/$1',
    '^@app/platform$': '<rootDir>/libs/platform/src',
    '^@app/platform/(.*)$': '<rootDir>/libs/platform/src/$1',
    '^@lead-intelligence/client$': '<rootDir>/packages/client/src',
  },
};

/** @type {import('jest').Config} */
module.exports = {
  projects: [
    { ...shared, displayName: 'unit', testMatch: ['**/*.spec.ts'], setupFiles: ['<rootDir>/test/unit-setup.ts'] },
    { ...shared, displayName: 'integration', testMatch: ['**/*.integration-spec.ts'] },
    {
      ...shared,
      displayName: 'e2e',
      testMatch: ['**/*.e2e-spec.ts'],
      // the meshes TestMesh.shared keeps between the files of a worker (test/mesh-pool.js)
      testEnvironment: '<rootDir>/test/e2e-environment.js',
      globalSetup: '<rootDir>/test/e2e-setup.ts',
      globalTeardown: '<rootDir>/test/e2e-teardown.ts',
    },
  ],
  // a global option: jest ignores it inside a project. The harness's TEST_TIMEOUT_MS (HARNESS.testTimeoutMs,
  // docs/testing.md "Harness settings"): a bound on waiting for a test, not an assertion of its speed
  testTimeout: Number(process.env.TEST_TIMEOUT_MS || 120_000),
  // three on CI's two cores: an e2e worker waits on its mesh much of the time (docs/testing.md,
  // "Workers and order": 452 s against 564 s with two); a worker runs one mesh at a time, which
  // keeps three within PostgreSQL's default 100 connections
  maxWorkers: 3,
  // the slowest files first also on a fresh clone, where jest has no durations of its own
  testSequencer: '<rootDir>/test/sequencer.js',
};
