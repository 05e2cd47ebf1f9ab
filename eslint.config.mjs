// Type-aware lint for everything tsc checks plus the plain .mjs/.cjs files tsc does not see.
// typescript-eslint needs TypeScript's JS compiler API, which TypeScript 7 no longer ships: the
// `typescript` package name is an alias of @typescript/typescript6 (the API, `tsc6`), while `tsc`
// comes from TypeScript 7 under the @typescript/native alias, so `npm run typecheck` is unchanged.
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default defineConfig(
  {
    ignores: ['dist/', 'out/', 'media/dist/', '.cache/', 'bench/out/', 'test-results/', 'test/fixtures/workspace/'],
  },
  js.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        // Each file is checked with the nearest tsconfig (media/src gets the DOM one); the files no
        // tsconfig includes get a default project.
        projectService: { allowDefaultProject: ['*.mjs', 'bin/*.cjs', 'scripts/*.mjs'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // node:test's test() returns a promise that the runner tracks itself; test files never await it.
      '@typescript-eslint/no-floating-promises': [
        'error',
        { allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['test', 'describe', 'it', 'suite'] }] },
      ],
      // Off: an async function without await is how this code returns a promise from synchronous
      // work to fit an async contract (test callbacks, close(), bench runners); it finds no bugs.
      '@typescript-eslint/require-await': 'off',
      // A leading underscore is the house sign for a binding that must exist but is not used.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['**/*.mjs', '**/*.cjs'],
    languageOptions: { globals: globals.node },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
    // A .cjs file is CommonJS on purpose: require() is its import.
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['test/e2e/**'],
    // Off here: the callbacks passed to page.evaluate() run in the browser, and the Node tsconfig has
    // no DOM types, so every element they touch is unresolved and each use would be reported.
    rules: {
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
);
