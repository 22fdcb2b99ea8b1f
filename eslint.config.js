import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/**
 * The fences between the layers of src/ (docs/ARCHITECTURE.md): the core decides, adapters act.
 * Each layer names the folders of src/ and the packages it must not reach; the rules below
 * refuse both a static import and a dynamic `import()` of them, from a file at any depth of
 * the layer, since `../app/` and `../../app/` are one folder seen from two depths.
 */

/**
 * The folders of the core by floor: each imports only folders on floors below its own, so that
 * the core's arrows run one way: the plan is rendered, never the reverse, and a report shows
 * what was decided while what decides never asks how it is shown.
 */
export const CORE_FLOORS = [
  ['manifest'],
  ['plan'],
  ['state'],
  ['render', 'calibrate'],
  ['judge'],
  ['decide'],
  ['report', 'workflow'],
  ['lint'],
];
const CORE = CORE_FLOORS.flat();

/** The modules that touch processes, files or the network. */
const ACTING = [
  'node:fs',
  'node:fs/promises',
  'node:child_process',
  'node:net',
  'fs',
  'fs/promises',
  'child_process',
  'net',
  'ssh2',
];

/** A relative import of one of `folders` of src/, from a file at any depth below src/. */
const intoFolders = (folders) => `^\\.\\.?/(\\.\\./)*(${folders.join('|')})/`;

/** An import of a package of one of these scopes (`@actions/core`). */
const ofScopes = (scopes) => `^(${scopes.join('|')})/`;

/**
 * The rules of one layer: `folders` of src/ and packages of `scopes` are refused, and `modules`
 * by name, each with `why`; of `typesOnly.folders` only types may be imported. A dynamic import
 * is held to the same fences where its target is a string, and refused where it is not, since
 * no fence could read it.
 */
function fence({ folders, scopes = [], modules = [], why, typesOnly }) {
  const refused = [intoFolders(folders), ...(scopes.length > 0 ? [ofScopes(scopes)] : [])];
  const dynamic = (regex, message) => ({
    selector: `ImportExpression[source.value=/${regex.replaceAll('/', '\\/')}/]`,
    message,
  });
  return {
    'no-restricted-imports': [
      'error',
      {
        paths: modules.map((name) => ({ name, message: why })),
        patterns: refused.map((regex) => ({ regex, message: why })),
      },
    ],
    // `typesOnly.folders` lend their types alone: `import type` passes, a value (or a dynamic import) does not.
    ...(typesOnly === undefined
      ? {}
      : {
          '@typescript-eslint/no-restricted-imports': [
            'error',
            { patterns: [{ regex: intoFolders(typesOnly.folders), allowTypeImports: true, message: typesOnly.why }] },
          ],
        }),
    'no-restricted-syntax': [
      'error',
      ...[...refused, ...modules.map((m) => `^${m}$`)].map((regex) => dynamic(regex, why)),
      ...(typesOnly === undefined ? [] : [dynamic(intoFolders(typesOnly.folders), typesOnly.why)]),
      {
        selector: 'ImportExpression:not([source.type="Literal"])',
        message: 'Name the module as a string, so that the fences of eslint.config.js can read it.',
      },
    ],
  };
}

/**
 * What a front end takes of the layers below src/app: types alone. It parses its inputs, calls
 * a use case of src/app and presents what comes back; what acts and what decides it reaches
 * only through src/app.
 */
const FRONT_END_TYPES_ONLY = {
  folders: ['exec', 'decide', 'state'],
  why: 'A front end reaches src/exec, src/decide and src/state through the use cases of src/app: from them it imports types alone (`import type`) (docs/ARCHITECTURE.md).',
};

/**
 * The rules of a file of the core: it reaches none of the adapters, none of `above` (the core's
 * folders on its floor or higher), and nothing that acts; and it imports statically, since the
 * core loads all it uses when it is loaded and deciding never waits on loading a module.
 */
function core(above, why) {
  return {
    ...fence({
      folders: ['exec', 'github', 'app', 'cli', 'action', ...above],
      scopes: ['@actions', '@octokit'],
      modules: ACTING,
      why,
    }),
    'no-restricted-syntax': [
      'error',
      {
        selector: 'ImportExpression',
        message: 'The core imports statically: a dynamic import() is for the adapters (docs/ARCHITECTURE.md).',
      },
    ],
  };
}

const layer = (folders) => folders.map((f) => `src/${f}/**/*.ts`);

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
  // The core decides: only exec/, app/ and the front ends may touch processes, files or the network.
  ...CORE_FLOORS.flatMap((floor, level) =>
    floor.map((folder) => {
      const below = CORE_FLOORS.slice(0, level).flat();
      return {
        files: layer([folder]),
        rules: core(
          CORE.filter((f) => f !== folder && !below.includes(f)),
          `src/${folder} is of the core, which decides and touches nothing: of src/ it imports ` +
            [...below.map((f) => `src/${f}`), 'src/errors.ts'].join(', ') +
            ', never an adapter, processes, files or the network (docs/ARCHITECTURE.md).',
        ),
      };
    }),
  ),
  {
    files: ['src/errors.ts'],
    rules: core(CORE, 'src/errors.ts is under every layer: it imports nothing of src/ (docs/ARCHITECTURE.md).'),
  },
  {
    // The executors act for whichever front end drives them: app/ imports exec/, never the reverse.
    files: layer(['exec']),
    rules: fence({
      folders: ['app', 'cli', 'action', 'github'],
      scopes: ['@actions', '@octokit'],
      why: 'src/exec acts for any front end: it imports the core and its own folders, never src/app, src/github, the front ends or @actions/* (docs/ARCHITECTURE.md).',
    }),
  },
  {
    // What both front ends read of GitHub: pure rules, and REST through fetch; no processes or
    // files, and none of @actions/* (the CLI must run without them).
    files: layer(['github']),
    rules: fence({
      folders: ['exec', 'app', 'cli', 'action'],
      scopes: ['@actions', '@octokit'],
      modules: ACTING,
      why: 'src/github reads GitHub through fetch alone: no processes, no files, no @actions/*, and none of the layers that use it (docs/ARCHITECTURE.md).',
    }),
  },
  {
    // Two front ends over one application layer (src/app): neither imports the other, and the
    // application layer imports neither, nor the GitHub API.
    files: layer(['app']),
    rules: fence({
      folders: ['cli', 'action', 'github'],
      scopes: ['@actions', '@octokit'],
      why: 'src/app is what both front ends share: it imports neither of them, nor the GitHub API (docs/ARCHITECTURE.md).',
    }),
  },
  {
    files: layer(['cli']),
    rules: fence({
      folders: ['action'],
      scopes: ['@actions', '@octokit'],
      typesOnly: FRONT_END_TYPES_ONLY,
      why: 'The command line runs without the Action: it imports nothing of src/action or @actions/* (docs/ARCHITECTURE.md).',
    }),
  },
  {
    files: layer(['action']),
    rules: fence({
      folders: ['cli'],
      typesOnly: FRONT_END_TYPES_ONLY,
      why: 'The Action imports nothing of the command line: what both need is in src/app (docs/ARCHITECTURE.md).',
    }),
  },
);
