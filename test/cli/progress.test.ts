/**
 * The live display of `campaign run` (src/cli/progress.ts): on a terminal every line fits its
 * width (a wrapped line would garble the next redraw), with the time elapsed and, from the cost
 * model, the time left; without a terminal or with TERM=dumb, plain lines, one per change.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Progress } from '../../src/cli/progress.js';
import { manifest as manifestSchema } from '../../src/manifest/schema.js';
import { planCampaign } from '../../src/plan/plan.js';
import { emptyState, type CampaignState, type TaskState } from '../../src/state/state.js';

const T0 = Date.parse('2026-11-30T12:00:00.000Z');
const iso = (s: number): string => new Date(T0 + s * 1000).toISOString();

const plan = planCampaign(
  manifestSchema.parse({
    campaign: 'c',
    cluster: { executor: 'slurm', name: 'x' },
    workdir: 'w',
    phases: [
      {
        name: 'train_teachers_on_the_whole_corpus_with_long_names',
        grid: { n: [1, 2, 3, 4, 5, 6] },
        command: 'true',
        cost: { unit: 'step', units: 60, per_unit: '1s', measured_on: 'x' },
      },
      {
        name: 'evaluate',
        depends_on: 'train_teachers_on_the_whole_corpus_with_long_names',
        command: 'true',
        walltime: '5m',
      },
    ],
  }),
);
const ids = plan.phases[0]!.tasks.map((t) => t.id);

const running: TaskState = { status: 'running', attempts: [{ n: 1, submittedAt: iso(0), startedAt: iso(1) }] };
const done: TaskState = { status: 'completed', attempts: [{ n: 1, submittedAt: iso(0), class: 'completed' }] };
const failed: TaskState = {
  status: 'failed',
  reason: 'exit 1 after a very long explanation of what went wrong on the node '.repeat(3),
  attempts: [{ n: 1, submittedAt: iso(0), class: 'failed' }],
};

function state(tasks: Record<string, TaskState>): CampaignState {
  return {
    ...emptyState('c', iso(0)),
    phases: { [plan.phases[0]!.name]: { status: 'full' }, evaluate: { status: 'waiting' } },
    tasks,
  };
}

/** The lines a terminal shows after each redraw: escape sequences taken out. */
function terminal(columns: number, term = 'xterm-256color') {
  let text = '';
  let t = T0;
  const progress = new Progress({ isTTY: true, columns, write: (s: string) => (text += s) }, plan, {
    now: () => t,
    term,
  });
  return {
    update(s: CampaignState, atSeconds: number) {
      t = T0 + atSeconds * 1000;
      text = '';
      progress.update(s);
      return text;
    },
  };
}

/** The escape character, which a regular expression literal may not hold (eslint). */
const ESC = String.fromCharCode(27);
const CONTROL = new RegExp(`${ESC}\\[\\d*[A-Z]`, 'g');
const plainLines = (text: string): string[] => text.replace(CONTROL, '').split('\n').filter(Boolean);

describe('the live display', () => {
  it.each([60, 80])(
    'at %i columns no line is wider than the terminal, and it says the time elapsed and left',
    (columns) => {
      const d = terminal(columns);
      const drawn = d.update(
        state({ [ids[0]!]: running, [ids[1]!]: running, [ids[2]!]: done, [ids[3]!]: failed }),
        125,
      );
      const lines = plainLines(drawn);
      expect(lines).toHaveLength(3);
      for (const l of lines) expect(Array.from(l).length, l).toBeLessThan(columns);
      // Four tasks of 60 s left (the done and the failed one are over), two running: about 2m;
      // evaluate's task has no cost model, and is said to be left out (cut short at 60 columns).
      expect(lines[0]).toMatch(/^elapsed 2m5s, about 2m left( \(and 1 task without a cost model\)|.*…)$/);
      expect(lines[1]).toMatch(/^train_teachers_on_the_whole_corpus_with_long_names \[running\]|…$/);
      // The next redraw moves up over what was drawn, and clears each line.
      const again = d.update(state({}), 130);
      expect(again.startsWith('\x1b[3A')).toBe(true);
      expect(again.split(`${ESC}[2K`)).toHaveLength(4);
    },
  );

  it('fits any width and any state (property)', () => {
    const statuses = fc.constantFrom<TaskState | undefined>(running, done, failed, undefined);
    fc.assert(
      fc.property(
        fc.integer({ min: 20, max: 200 }),
        fc.array(statuses, { minLength: 6, maxLength: 6 }),
        (columns, s) => {
          const tasks = Object.fromEntries(ids.flatMap((id, i) => (s[i] ? [[id, s[i]]] : [])));
          for (const l of plainLines(terminal(columns).update(state(tasks), 3_725)))
            expect(Array.from(l).length).toBeLessThan(columns);
        },
      ),
    );
  });

  it('without a cost model for what is left it gives the elapsed time only', () => {
    const d = terminal(80);
    const all = Object.fromEntries(ids.map((id) => [id, done]));
    expect(plainLines(d.update(state(all), 10))[0]).toBe('elapsed 10s');
  });

  it.each([
    ['no terminal', false, 'xterm'],
    ['TERM=dumb', true, 'dumb'],
  ])('with %s: plain lines, one per change, no escape sequences', (_, isTTY, term) => {
    let text = '';
    let t = T0;
    const p = new Progress({ isTTY, columns: 80, write: (s: string) => (text += s) }, plan, { now: () => t, term });
    const s = state({ [ids[0]!]: running });
    p.update(s);
    t += 65_000;
    p.update(s);
    p.update(state({ [ids[0]!]: done }));
    expect(text).not.toContain('\x1b');
    const lines = text.split('\n').filter(Boolean);
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(
      /^\[campaign 0s\] train_teachers_on_the_whole_corpus_with_long_names \[full\] 0\/6 done, 1 running/,
    );
    expect(lines[2]).toMatch(/^\[campaign 1m5s\] train_teachers_\S+ \[full\] 1\/6 done/);
  });
});
