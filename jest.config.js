/** Jest in ESM mode (NestJS 12 is ESM-only); why Jest 29 and not 30: the "Stack" table of README.md. */
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleFileExtensions: ['ts', 'js', 'json'],
  roots: ['<rootDir>/src', '<rootDir>/test'],
  testRegex: '.*\\.(spec|e2e-spec)\\.ts$',
  // `*.postgres.e2e-spec.ts`: several server processes on one database, which an embedded data directory
  // (one process) cannot be; they run in the PostgreSQL run only (DATABASE_URL set).
  testPathIgnorePatterns: ['/node_modules/', ...(process.env.DATABASE_URL ? [] : ['\\.postgres\\.e2e-spec\\.ts$'])],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: {
    '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json', diagnostics: { ignoreCodes: [151002] } }],
  },
  testTimeout: 60000,
};
