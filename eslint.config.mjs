// @ts-check
import eslint from '@eslint/js';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'libs/*/dist/**',
      // Consumer apps compile against the packed tarballs in a temporary copy (test/consumers/run-matrix.ts).
      'test/consumers/nest*/**',
      'test/consumers/shared*/**',
      'test/consumers/readme-nest*/**',
      'test/consumers/readme-prisma/**',
      'test/consumers/readme-drizzle/**',
      'node_modules/**',
      '.cache/**',
      '.stack/**',
      'coverage/**',
      '*.js',
      '*.mjs',
    ],
  },
  eslint.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  prettier,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/consistent-type-imports': [
        'error',
        { prefer: 'type-imports', fixStyle: 'separate-type-imports' },
      ],
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      'no-console': 'error',
    },
  },
  {
    // Tests, benchmarks, scripts and the sample apps may print; libraries must inject Nest's Logger.
    files: [
      'test/**',
      'bench/**',
      'scripts/**',
      'apps/**',
      '**/*.spec.ts',
      '**/*.int-spec.ts',
      'libs/*/src/cli/**',
    ],
    rules: {
      'no-console': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/unbound-method': 'off',
    },
  },
  {
    // The sample apps use the public API as users do.
    files: ['apps/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        { paths: [{ name: '@nest-outbox/core/internal', message: 'Use a public entry point.' }] },
      ],
    },
  },
  {
    // The relay console's page script: plain browser JavaScript, served as a static file.
    files: ['libs/*/static/**/*.js'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      sourceType: 'script',
      parserOptions: { projectService: false },
      globals: {
        document: 'readonly',
        location: 'readonly',
        sessionStorage: 'readonly',
        fetch: 'readonly',
      },
    },
  },
);
