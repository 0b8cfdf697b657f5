// One jest run for the whole workspace. TypeScript is transformed by swc; the
// packages are ES modules, so jest runs with --experimental-vm-modules.
const swc = ['@swc/jest', { jsc: { target: 'es2022', parser: { syntax: 'typescript' } }, module: { type: 'es6' } }];

export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  transform: { '^.+\\.ts$': swc },
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  testMatch: ['<rootDir>/{libs,services}/*/test/**/*.test.ts', '<rootDir>/test-e2e/test/**/*.test.ts', '<rootDir>/test-security/test/**/*.test.ts', '<rootDir>/deploy/test/**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/'],
  testTimeout: 60_000,
  // every status a test sees a gateway route answer must be in /openapi.json (test-e2e/src/statuses.ts)
  globalSetup: '<rootDir>/test-e2e/src/statuses-setup.mjs',
  setupFilesAfterEnv: ['<rootDir>/test-e2e/src/record-statuses.ts'],
  globalTeardown: '<rootDir>/test-e2e/src/statuses-teardown.mjs',
};
