/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/apps', '<rootDir>/libs', '<rootDir>/test', '<rootDir>/tools', '<rootDir>/packages'],
  testMatch: ['**/*.spec.ts', '**/*.integration-spec.ts', '**/*.e2e-spec.ts'],
  transform: { '^.+\\.(t|j)s$': ['@swc/jest'] },
  transformIgnorePatterns: ['/node_modules/(?!(@nestjs|@nats-io|uid|load-esm|file-type|@standard-schema)/)'],
  moduleNameMapper: {
    '^@app/contracts$': '<rootDir>/libs/contracts/src',
    '^@app/contracts/(.*)$': '<rootDir>/libs/contracts/src/$1',
    '^@app/platform$': '<rootDir>/libs/platform/src',
    '^@app/platform/(.*)$': '<rootDir>/libs/platform/src/$1',
  },
  testTimeout: 60_000,
  maxWorkers: 2,
};
