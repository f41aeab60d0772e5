/**
 * One Jest run for every tier, one project each: unit (`*.spec.ts`: no services, no build),
 * integration against the real stack (`*.int-spec.ts`) with end-to-end over the sample apps
 * (`test/*.e2e-spec.ts`), and the fault tests (`test/faults/*.fault-spec.ts`: a three-broker
 * cluster, PostgreSQL crashes, consumer churn, the seeded chaos run), one file at a time
 * (`acquireFaultSlot`), so they hold at most one worker. `npm run test:unit` (`--selectProjects
 * unit`) and `npx jest --selectProjects faults` run one tier. The global setup of the two
 * service tiers builds the apps and brings PostgreSQL and Kafka up (or reuses them); Jest runs
 * it only when a file of those tiers runs. Every file isolates itself with its own schema and
 * topics, so files run in parallel.
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

const project = {
  rootDir: __dirname,
  testEnvironment: 'node',
  transform: {
    '^.+\\.ts$': ['@swc/jest', swcOptions],
    // @platformatic/kafka and its own packages ship ES modules only: compiled like the sources.
    '/node_modules/@platformatic/.+\\.js$': [
      '@swc/jest',
      { ...swcOptions, jsc: { ...swcOptions.jsc, parser: { syntax: 'ecmascript' } } },
    ],
  },
  transformIgnorePatterns: ['/node_modules/(?!@platformatic/)'],
  moduleFileExtensions: ['ts', 'js', 'json'],
  moduleNameMapper: {
    '^@nest-outbox/(core|outbox|relay|relay-console|inbox)$': '<rootDir>/libs/$1/src',
    '^@nest-outbox/(relay|inbox)/health$': '<rootDir>/libs/$1/src/health',
    '^@nest-outbox/(outbox|inbox)/testing$': '<rootDir>/libs/$1/src/testing',
    '^@nest-outbox/core/internal$': '<rootDir>/libs/core/src/internal',
    '^@test/support$': '<rootDir>/test/support',
  },
};

const withStack = { ...project, globalSetup: '<rootDir>/test/support/global-setup.ts' };

module.exports = {
  projects: [
    {
      ...project,
      displayName: 'unit',
      testRegex: '\\.spec\\.ts$',
      testPathIgnorePatterns: ['/node_modules/', '/dist/'],
    },
    {
      ...withStack,
      displayName: 'default',
      testRegex: '(\\.int-spec|\\.e2e-spec)\\.ts$',
      testPathIgnorePatterns: ['/node_modules/', '/dist/', '/test/faults/'],
    },
    {
      ...withStack,
      displayName: 'faults',
      testRegex: 'test/faults/.*\\.fault-spec\\.ts$',
      testPathIgnorePatterns: ['/node_modules/', '/dist/'],
    },
  ],
  testTimeout: 120000,
  maxWorkers: 2,
  forceExit: false,
};
