// Type-aware lint for every workspace package. Generated outputs (dist, openapi types) are ignored.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** Import patterns refused below the HTTP layer of the server. */
const BELOW_HTTP = [
  {
    group: ['fastify', 'fastify/*', '@fastify/*'],
    message: 'Fastify belongs to the HTTP layer; take the Logger port (ports/logger.ts) or a domain type.',
  },
  {
    group: ['**/http', '**/http/**'],
    message:
      'Nothing below the HTTP layer imports from http/: define the type in domain/ and check the schema against it (http/schemas/view-contracts.ts).',
  },
];

/** Import patterns refused above the repositories (services, jobs, ports, domain). */
const ABOVE_DATA = [
  {
    group: ['kysely', 'pg', 'better-sqlite3', '**/db/*', '!**/db/schema.js', '!**/db/schema-bench.js'],
    message:
      'SQL lives in repositories/: call a repository method (a Repositories transaction spans several).',
  },
  {
    group: ['**/adapters/**'],
    message: 'Take the port (ports/) and let the composition root (roles/) pick the adapter.',
  },
];

/** Repositories are built only by `Repositories` (repositories/index.ts), which also exports their types. */
const VIA_REPOSITORIES = [
  {
    group: ['**/repositories/*.repository.js'],
    message:
      "Reach the database through `Repositories` (deps.repos, or a transaction's): import repository types from repositories/index.js.",
  },
];

export default tseslint.config(
  {
    ignores: [
      '**/dist/**',
      '**/node_modules/**',
      '**/*.generated.ts',
      'coverage/**',
      '.vesta/**',
      // Scratch space the benchmark docs use (git-ignored): another revision's source, one-off scripts.
      'tmp/**',
      '**/*.cjs',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: {
          allowDefaultProject: [
            '*.js',
            '*.mjs',
            'scripts/*.mjs',
            'packages/cli/bin/*.js',
            'python/tests/support/*.mjs',
          ],
        },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/restrict-template-expressions': [
        'error',
        { allowNumber: true, allowBoolean: true },
      ],
    },
  },
  {
    // The layers under the HTTP layer never reach up into it: services, repositories, ports, jobs
    // and domain types know nothing of Fastify or of the routes' schemas (docs/architecture.md, Layers).
    files: ['packages/server/src/repositories/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [...BELOW_HTTP] }] },
  },
  {
    // Services, jobs, ports and domain types reach the database through repositories only: no
    // Kysely, no connection, no adapter (the schema's record and state types are allowed).
    files: ['packages/server/src/{services,jobs,domain,ports}/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [...BELOW_HTTP, ...ABOVE_DATA, ...VIA_REPOSITORIES] }],
    },
  },
  {
    // The HTTP layer and the composition roots take the repositories the composition root built.
    files: ['packages/server/src/{http,roles}/**/*.ts', 'packages/server/src/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [...VIA_REPOSITORIES] }] },
  },
  {
    // Adapters implement ports: they know the port's types and their own engine, never a service
    // or the HTTP layer (what they need from above is a port, e.g. UploadTicketSigner).
    files: ['packages/server/src/adapters/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            ...BELOW_HTTP,
            {
              group: ['**/services', '**/services/**', '**/repositories', '**/repositories/**'],
              message: 'An adapter implements a port: take what it needs from ports/.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['**/test/**/*.ts', '**/*.test.ts', 'scripts/**'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
);
