import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['lib/', 'dist/', 'node_modules/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.strict,
  {
    languageOptions: { globals: globals.node },
    rules: {
      // With noUncheckedIndexedAccess, '!' marks an index the code has just proven present.
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
  {
    // The core decides, adapters act: only exec/, app/ and the front ends may touch processes, files or the network.
    files: [
      'src/manifest/**/*.ts',
      'src/plan/**/*.ts',
      'src/lint/**/*.ts',
      'src/render/**/*.ts',
      'src/state/**/*.ts',
      'src/decide/**/*.ts',
      'src/judge/**/*.ts',
      'src/calibrate/**/*.ts',
      'src/report/**/*.ts',
      'src/workflow/**/*.ts',
    ],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: ['node:fs', 'node:fs/promises', 'node:child_process', 'fs', 'child_process', 'ssh2', 'node:net'],
          patterns: [
            '@actions/*',
            '../exec/*',
            '../cli/*',
            '../app/*',
            '../action/*',
            '../github/*',
            '../../exec/*',
            '../../cli/*',
          ],
        },
      ],
    },
  },
  {
    // Two front ends over one application layer (src/app): neither imports the other, and the
    // application layer imports neither.
    files: ['src/cli/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: ['../action/*', '../../action/*'] }] },
  },
  {
    files: ['src/action/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: ['../cli/*', '../../cli/*'] }] },
  },
  {
    // What both front ends read of GitHub: pure rules, and REST through fetch; no processes or
    // files, and none of @actions/* (the CLI must run without them).
    files: ['src/github/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: ['node:fs', 'node:fs/promises', 'node:child_process', 'fs', 'child_process', 'ssh2', 'node:net'],
          patterns: ['@actions/*', '@octokit/*', '../exec/*', '../cli/*', '../app/*', '../action/*'],
        },
      ],
    },
  },
  {
    files: ['src/app/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: ['../cli/*', '../action/*', '@actions/*'] }],
    },
  },
);
