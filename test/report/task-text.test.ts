/**
 * Text a task controls reaches people as text: in the summary, the job summary and the check
 * runs (markdown) an attempt's reason, a phase's reason and a check's detail are inline code, so
 * no link, image or HTML in them renders; on a terminal no control character of theirs moves the
 * cursor, retitles the window or makes a link (report/markdown.ts, report/terminal.ts, the live
 * display and the guard on the CLI's output).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Progress } from '../../src/cli/progress.js';
import { guardTerminal } from '../../src/app/terminal.js';
import { manifest as manifestSchema } from '../../src/manifest/schema.js';
import { planCampaign, smokeDefinitions } from '../../src/plan/plan.js';
import { gateView } from '../../src/report/job-summary.js';
import { inlineCode, tableCell } from '../../src/report/markdown.js';
import { phaseTable, renderSummary } from '../../src/report/summary.js';
import { terminalText } from '../../src/report/terminal.js';
import { emptyState, type CampaignState } from '../../src/state/state.js';

/** What a task may print where a reason or a detail quotes it. */
const HOSTILE = [
  '[Re-authenticate](https://evil.example/login)',
  '![status](https://evil.example/pixel.png)',
  'a<br>b<img src=x onerror=alert(1)>',
  '<details><summary>click</summary>',
  '```\n# Injected heading\n```',
  '`x` ``y``',
];
/** Each is markup only outside a code span. */
const MARKUP = ['](https://evil', '<br>', '<img', '<details>', '\n# Injected'];

const at = '2026-11-30T00:00:00.000Z';
const plan = planCampaign(
  manifestSchema.parse({
    campaign: 'c',
    cluster: { executor: 'local' },
    workdir: 'w',
    phases: [
      { name: 'p', grid: { n: [1] }, command: 'true', smoke: { tasks: 1, trigger: [{ check: 'all_completed' }] } },
    ],
  }),
);
const phase = plan.phases[0]!;

function hostileState(text: string): CampaignState {
  const task = phase.tasks[0]!.id;
  return {
    ...emptyState('c', at),
    phases: {
      p: {
        status: 'blocked',
        reason: text,
        gate: {
          passed: false,
          at,
          definitions: smokeDefinitions(phase),
          results: [{ check: 'command', passed: false, detail: text }],
        },
      },
    },
    tasks: {
      [task]: {
        status: 'failed',
        reason: text,
        attempts: [{ n: 1, submittedAt: at, endedAt: at, class: 'failed', exitCode: 1 }],
      },
    },
  };
}

/** `markdown` with each place `text` was put as inline code taken out. */
function outsideCode(markdown: string, text: string): string {
  return markdown
    .split(tableCell(inlineCode(text)))
    .join('')
    .split(inlineCode(text))
    .join('');
}

describe('inline code', () => {
  it('holds any text whole on one line: its fence is a run of backticks the text never has (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('`', ' ', 'a', '\n', '\r', '|', '<') }), (text) => {
        const code = inlineCode(text);
        const flat = text.replace(/\r?\n|\r/g, ' ');
        if (flat === '') {
          expect(code).toBe('');
          return;
        }
        const fence = /^`+/.exec(code)![0];
        expect(code.endsWith(fence)).toBe(true);
        const inner = code.slice(fence.length, -fence.length);
        expect(inner).not.toMatch(/\n|\r/);
        // CommonMark: the span ends at the first run of exactly as many backticks.
        expect([...inner.matchAll(/`+/g)].every((m) => m[0].length !== fence.length)).toBe(true);
        // One space comes off each end only when both ends have one.
        const stripped =
          inner.startsWith(' ') && inner.endsWith(' ') && inner.trim() !== '' ? inner.slice(1, -1) : inner;
        expect(stripped).toBe(flat);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('markdown never renders what a task printed', () => {
  it.each(HOSTILE)('in the summary, the phase table and the check run: %j', (text) => {
    const state = hostileState(text);
    const summary = renderSummary({ plan, state, tails: new Map() });
    const judged = gateView(phase, state);
    const unjudged = gateView(phase, { ...state, phases: { p: { status: 'blocked', reason: text } } });
    for (const markdown of [summary, phaseTable(plan, state).join('\n'), judged.text, unjudged.text]) {
      expect(markdown).toContain(inlineCode(text).slice(0, 3));
      const rest = outsideCode(markdown, text);
      for (const m of MARKUP) expect(rest, markdown).not.toContain(m);
    }
  });
});

describe('the terminal gets no control character from a task', () => {
  const ESCAPES = '\x1b]0;owned\x07\x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\\x1b[2J\x9b31m\x00\x7f\b';

  it('strips C0 and C1 characters but newline and tab; a carriage return ends a line (property)', () => {
    expect(terminalText(`a\tb\r\nc\rd${ESCAPES}`)).toBe(
      'a\tb\nc\nd]0;owned]8;;https://evil.example\\click]8;;\\[2J31m',
    );
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        // eslint-disable-next-line no-control-regex -- control characters are what it looks for
        expect(terminalText(text)).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
      }),
    );
  });

  it('in the live display, whose own escapes alone remain', () => {
    const written: string[] = [];
    const progress = new Progress({ isTTY: true, columns: 200, write: (t: string) => written.push(t) }, plan, {
      term: 'xterm',
    });
    progress.update(hostileState(`failed ${ESCAPES}`));
    progress.update(hostileState(`failed ${ESCAPES}`));
    // eslint-disable-next-line no-control-regex -- the display's own escapes are what it allows
    const own = /^(\x1b\[\d+A|\x1b\[2K[^\x1b]*\n)$/;
    for (const w of written) expect(w).toMatch(own);
  });

  it('in whatever the CLI writes to a terminal (the guard on stdout and stderr)', () => {
    const written: string[] = [];
    const stream = { isTTY: true, write: (t: string) => written.push(t) } as unknown as NodeJS.WriteStream;
    guardTerminal(stream);
    stream.write(`campaign: p/n1: ${ESCAPES}\n`);
    stream.write(Buffer.from(`\x1b[31m\u00e9\n`));
    expect(written).toEqual(['campaign: p/n1: ]0;owned]8;;https://evil.example\\click]8;;\\[2J31m\n', '[31m\u00e9\n']);
  });
});
