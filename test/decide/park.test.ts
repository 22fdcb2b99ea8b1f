import { describe, expect, it } from 'vitest';
import { parkedAfter } from '../../src/decide/park.js';
import { parseManifest } from '../../src/manifest/load.js';
import { planCampaign } from '../../src/plan/plan.js';
import { emptyState, type CampaignState } from '../../src/state/state.js';

const plan = planCampaign(
  parseManifest(
    'm.yml',
    `campaign: m
cluster: { executor: local }
workdir: /tmp/m
phases:
  - name: a
    grid: { k: [1, 2] }
    command: 'true'
    walltime: 5m
  - name: b
    command: 'true'
    walltime: 5m
`,
  ).manifest,
);

function state(
  a: 'running' | 'completed',
  b: 'pending' | 'completed',
  parked?: CampaignState['parked'],
): CampaignState {
  const s = emptyState('m', '2026-01-01T00:00:00.000Z');
  s.phases = {
    a: { status: a === 'running' ? 'full' : 'completed' },
    b: { status: b === 'completed' ? 'completed' : 'waiting' },
  };
  for (const t of plan.phases[0]!.tasks) s.tasks[t.id] = { status: a, attempts: [{ n: 1, submittedAt: s.created }] };
  for (const t of plan.phases[1]!.tasks) s.tasks[t.id] = { status: b, attempts: [] };
  return parked ? { ...s, parked } : s;
}

const A = { phase: 'a', stage: 'full' } as const;
const since = Date.parse('2026-01-01T01:00:00.000Z');

describe('what a job that may park leaves in the state', () => {
  it('a job that parks lists its scope, from the last change it saw, beside the others parked', () => {
    const other = { phase: 'b', stage: 'smoke' } as const;
    const out = parkedAfter(
      plan,
      { state: state('running', 'pending', { scopes: [other], since: 'x' }), atRest: false, parked: { since } },
      [A],
      false,
    );
    expect(out).toEqual({
      state: expect.objectContaining({ parked: { scopes: [other, A], since: '2026-01-01T01:00:00.000Z' } }),
      continues: false,
    });
  });

  it('a job that came to rest takes its scope off, and leaves the others', () => {
    const other = { phase: 'b', stage: 'smoke' } as const;
    const out = parkedAfter(
      plan,
      { state: state('completed', 'pending', { scopes: [A, other], since: 's' }), atRest: true },
      [A],
      false,
    );
    expect(out.state.parked).toEqual({ scopes: [other], since: 's' });
    expect(out.continues).toBe(false);
  });

  it('a resume whose scope is still out parks it again; one that came to rest clears all and runs the workflow again', () => {
    const out = parkedAfter(
      plan,
      { state: state('running', 'pending', { scopes: [A], since: 's' }), atRest: false, parked: { since } },
      [A],
      true,
    );
    expect(out).toMatchObject({ state: { parked: { scopes: [A] } }, continues: false });
    const rested = parkedAfter(
      plan,
      { state: state('completed', 'pending', { scopes: [A], since: 's' }), atRest: false, parked: { since } },
      [A],
      true,
    );
    expect(rested.state.parked).toBeUndefined();
    expect(rested.continues).toBe(true);
  });

  it('a resume that completed the campaign starts nothing; one whose budget ran out keeps what parked', () => {
    const done = parkedAfter(
      plan,
      { state: state('completed', 'completed', { scopes: [A], since: 's' }), atRest: true },
      [A],
      true,
    );
    expect(done).toMatchObject({ continues: false });
    expect(done.state.parked).toBeUndefined();
    const budget = parkedAfter(
      plan,
      { state: state('running', 'pending', { scopes: [A], since: 's' }), atRest: false },
      [A],
      true,
    );
    expect(budget).toMatchObject({ state: { parked: { scopes: [A], since: 's' } }, continues: false });
  });
});
