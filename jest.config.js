/**
 * One Jest run for every tier: unit (`*.spec.ts`), integration against the real stack
 * (`*.int-spec.ts`) and end-to-end over the sample apps (`test/*.e2e-spec.ts`).
 * The global setup brings PostgreSQL and Kafka up (or reuses them); every file isolates
 * itself with its own schema and topics, so files run in parallel.
 * @type {import('jest').Config}
 */
const swcOptions = {
  jsc: {
    parser: { syntax: 'typescript', decorators: true },
    transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
    target: 'es2022',
    keepClassNames: true,
  },
  module: { type: 'commonjs' },
  sourceMaps: 'inline',
};

module.exports = {
  rootDir: __dirname,
  testEnvironment: 'node',
  testRegex: '(\\.spec|\\.int-spec|\\.e2e-spec)\\.ts$',
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  transform: { '^.+\\.ts$': ['@swc/jest', swcOptions] },
  moduleFileExtensions: ['ts', 'js', 'json'],
  moduleNameMapper: {
    '^@nest-outbox/(core|outbox|relay|inbox)$': '<rootDir>/libs/$1/src',
    '^@nest-outbox/(relay|inbox)/health$': '<rootDir>/libs/$1/src/health',
    '^@test/support$': '<rootDir>/test/support',
  },
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  testTimeout: 120000,
  maxWorkers: 2,
  forceExit: false,
};
