/**
 * Executor kinds live in tables keyed by `cluster.executor` (plan/executor-kinds.ts for the
 * core, app/executors.ts for opening one), typed so that a kind the schema gains and a table
 * lacks does not compile. The type check of the tests (tsconfig.test.json) holds the first
 * half: the `@ts-expect-error` below fails the build if a missing kind were accepted.
 */
import { describe, expect, it } from 'vitest';
import { cluster } from '../../src/manifest/schema.js';
import { EXECUTOR_KINDS, type ExecutorKind, type KindTraits } from '../../src/plan/executor-kinds.js';
import type { Cluster } from '../../src/manifest/schema.js';

describe('the executor kinds', () => {
  it('a fourth kind without an entry is a compile error', () => {
    type WithFourth = ExecutorKind | 'kubernetes';
    // @ts-expect-error the table has no entry for 'kubernetes'
    const table: { [K in WithFourth]: KindTraits<Cluster> } = EXECUTOR_KINDS;
    expect(Object.keys(table)).not.toContain('kubernetes');
  });

  it('has one entry for each kind the schema accepts, and no other', () => {
    const kinds = cluster.options.map((o) => o.shape.executor.value).sort();
    expect(Object.keys(EXECUTOR_KINDS).sort()).toEqual(kinds);
  });
});
