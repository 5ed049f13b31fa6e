import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';

/*
 * The layers (ADR 107), enforced here rather than remembered: `core` imports nothing above it;
 * `app` (the browser) imports neither the server nor the media node nor the workers; `media-server`
 * does not import `server`; `workers` import neither `app` nor `server`. Kysely (its import and its
 * query builder) lives only in repositories and the database platform (core/platform/db).
 * Specifiers are matched as written: `#app/...` and a relative path climbing into the folder.
 */
const TOP = { app: 'app', server: 'server', media: 'media-server', workers: 'workers', tests: 'tests', bench: 'bench' };
const ALIAS = { app: '#app', server: '#server', media: '#media', tests: '#tests' };
function above(from, names) {
  const alias = names.filter((n) => ALIAS[n]).map((n) => ALIAS[n]);
  const dirs = names.map((n) => TOP[n]);
  return {
    regex: `^((${alias.join('|')})/|(\\.\\./)+(${dirs.join('|')})/)`,
    message: `${from} may not import ${names.join(', ')} (eslint.config.js: the layers, ADR 107)`,
  };
}
const KYSELY = { name: 'kysely', message: 'Kysely only in repositories (*.repository.ts) and core/platform/db (ADR 107)' };
const QUERY_BUILDER = {
  selector: 'CallExpression[callee.property.name=/^(selectFrom|insertInto|updateTable|deleteFrom|replaceInto|mergeInto)$/]',
  message: 'Queries only in repositories (*.repository.ts) and core/platform/db (ADR 107)',
};
const REPOSITORIES = ['**/*.repository.ts', 'core/platform/db/**'];
const NOT_PRODUCTION = ['**/*.test.ts', 'tests/**', 'bench/**'];
const layer = (files, from, names, withDatabase) => ({
  files,
  ignores: withDatabase ? [] : REPOSITORIES,
  rules: {
    'no-restricted-imports': [
      'error',
      { ...(withDatabase ? {} : { paths: [KYSELY] }), patterns: names.length ? [above(from, names)] : [] },
    ],
  },
});

export default tseslint.config(
  { ignores: ['node_modules/', 'build/', 'build-e2e/', 'data/', '.react-router/', 'bench/results/'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  { files: ['app/**/*.ts', 'app/**/*.tsx'], ...reactHooks.configs.flat['recommended-latest'] },
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { attributes: false, arguments: false } }],
      '@typescript-eslint/only-throw-error': 'off',
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    // Tests read untyped JSON off the wire on purpose (hostile input, raw envelopes).
    files: ['tests/**/*.ts', '**/*.test.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  layer(['core/**/*.ts'], 'core', ['app', 'server', 'media', 'workers', 'tests', 'bench'], false),
  layer(REPOSITORIES, 'core', ['app', 'server', 'media', 'workers', 'tests', 'bench'], true),
  layer(['app/**/*.ts', 'app/**/*.tsx'], 'app', ['server', 'media', 'workers'], false),
  layer(['media-server/**/*.ts'], 'media-server', ['server', 'app', 'workers'], false),
  layer(['workers/**/*.ts'], 'workers', ['app', 'server'], false),
  layer(['server/**/*.ts'], 'server', [], false),
  {
    files: ['core/**/*.ts', 'app/**/*.ts', 'app/**/*.tsx', 'media-server/**/*.ts', 'workers/**/*.ts', 'server/**/*.ts'],
    ignores: [...REPOSITORIES, ...NOT_PRODUCTION],
    rules: { 'no-restricted-syntax': ['error', QUERY_BUILDER] },
  },
  {
    files: ['**/*.js', '**/*.cjs'],
    ...tseslint.configs.disableTypeChecked,
  },
);
