/** Text from a manifest never becomes markup in a picture: the escaping, and whole pictures built from any values. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { manifest as manifestSchema } from '../../src/manifest/schema.js';
import { planCampaign } from '../../src/plan/plan.js';
import { emptyState, type CampaignState } from '../../src/state/state.js';
import { pictures } from '../../src/report/pictures.js';
import { escapeXml } from '../../src/report/svg/svg.js';

const ENTITY: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
const unescape = (s: string): string => s.replace(/&(amp|lt|gt|quot|apos);/g, (_, e: string) => ENTITY[e]!);

/** What XML 1.0 can hold: everything but C0 controls (tab, newline, return aside), lone surrogates, U+FFFE/F. */
const xmlChars = (s: string): string =>
  s.replace(
    // eslint-disable-next-line no-control-regex -- these control characters are what the pattern is for
    /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g,
    '\uFFFD',
  );

/**
 * A strict enough XML check for what the pictures write: tags balance, attribute values are
 * quoted without `<` or a bare `&`, and text holds no `<` or bare `&`.
 */
function wellFormed(svg: string): string | undefined {
  const stack: string[] = [];
  const token =
    /<(\/?)([A-Za-z][\w:-]*)((?:\s+[\w:-]+="[^"<&]*(?:&(?:amp|lt|gt|quot|apos);[^"<&]*)*")*)\s*(\/?)>|([^<]+)/gy;
  let at = 0;
  for (let m = token.exec(svg); m; m = token.exec(svg)) {
    at = token.lastIndex;
    if (m[5] !== undefined) {
      if (/&(?!(?:amp|lt|gt|quot|apos);)/.test(m[5])) return `bare & in text: ${m[5].slice(0, 40)}`;
      continue;
    }
    if (m[1]) {
      if (stack.pop() !== m[2]) return `</${m[2]}> closes nothing open`;
    } else if (!m[4]) stack.push(m[2]!);
  }
  if (at !== svg.length) return `not markup at ${at}: ${svg.slice(at, at + 40)}`;
  return stack.length === 0 ? undefined : `unclosed <${stack.join('>, <')}>`;
}

describe('escapeXml', () => {
  it('leaves only characters and entities that cannot open markup, and reads back as the text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        const e = escapeXml(s);
        expect(e).toMatch(/^(?:[^&<>"']|&(?:amp|lt|gt|quot|apos);)*$/);
        expect(unescape(e)).toBe(xmlChars(s));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('pictures built from any grid values', () => {
  const at = (s: number): string => new Date(Date.UTC(2026, 10, 30, 9, 0, s)).toISOString();

  it('are well-formed, whatever the manifest holds', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.string({ unit: 'binary', minLength: 1, maxLength: 12 }), { minLength: 1, maxLength: 4 }),
        fc.constantFrom('completed', 'failed', 'timeout', undefined),
        (values, cls) => {
          const m = manifestSchema.parse({
            campaign: 'c',
            cluster: { executor: 'local' },
            workdir: 'w',
            phases: [
              {
                name: 'p',
                grid: { v: values },
                strata: ['v'],
                command: 'true',
                cost: { unit: 'step', units: 2, per_unit: '1s' },
              },
              { name: 'q', depends_on: 'p', command: 'true' },
            ],
          });
          const plan = planCampaign(m);
          const state: CampaignState = {
            ...emptyState('c', at(0)),
            updated: at(60),
            phases: { p: { status: 'full', reason: values[0] }, q: { status: 'blocked', reason: values[0] } },
            tasks: Object.fromEntries(
              plan.phases[0]!.tasks.map((t, i) => [
                t.id,
                {
                  status: 'completed',
                  attempts: [
                    {
                      n: 1,
                      submittedAt: at(i),
                      startedAt: at(i + 1),
                      ...(cls ? { endedAt: at(i + 5), class: cls } : {}),
                      reason: values[i],
                      adapted: [values[i]!],
                    },
                  ],
                },
              ]),
            ),
          };
          for (const p of pictures(plan, state)) expect(wellFormed(p.svg), p.file).toBeUndefined();
        },
      ),
      { numRuns: 300 },
    );
  });

  it('the check itself refuses markup that is not well-formed', () => {
    expect(wellFormed('<svg><text>a < b</text></svg>')).toBeDefined();
    expect(wellFormed('<svg><text>a & b</text></svg>')).toBeDefined();
    expect(wellFormed('<svg><g></svg>')).toBeDefined();
    expect(wellFormed('<svg><text x="1"">b</text></svg>')).toBeDefined();
    expect(wellFormed('<svg><text x="1">a &amp; b</text><g/></svg>')).toBeUndefined();
  });
});

describe('pictures of a large campaign', () => {
  it('stay small for 20,000 tasks: past a few thousand attempts each stratum shows how many ran at once', () => {
    const m = manifestSchema.parse({
      campaign: 'c',
      cluster: { executor: 'slurm', name: 'x' },
      workdir: 'w',
      phases: [
        {
          name: 'p',
          grid: { a: Array.from({ length: 200 }, (_, i) => i), b: Array.from({ length: 100 }, (_, i) => i) },
          strata: ['b'],
          command: 'true',
          cost: { unit: 's', units: 10, per_unit: '30s' },
        },
      ],
    });
    const plan = planCampaign(m);
    const t0 = Date.parse('2026-11-30T00:00:00Z');
    const iso = (s: number): string => new Date(t0 + s * 1000).toISOString();
    const tasks: CampaignState['tasks'] = {};
    plan.phases[0]!.tasks.forEach((t, i) => {
      // Waves of 200: each stratum has 2 tasks running at once.
      const start = Math.floor(i / 200) * 400;
      tasks[t.id] = {
        status: 'completed',
        attempts: [
          {
            n: 1,
            submittedAt: iso(start),
            startedAt: iso(start + 10),
            endedAt: iso(start + 250 + (i % 50)),
            class: 'completed',
            walltimeSeconds: 360,
          },
        ],
      };
    });
    const state: CampaignState = {
      ...emptyState('c', iso(0)),
      updated: iso(50_000),
      phases: { p: { status: 'completed' } },
      tasks,
    };
    const [timeline, runtimes] = pictures(plan, state);
    expect(timeline!.svg.length).toBeLessThan(2_000_000);
    expect(runtimes!.svg.length).toBeLessThan(1_000_000);
    expect(timeline!.svg).not.toContain('<title>p/');
    // No attempt alone: one band of columns per stratum, saying how many ran at once.
    expect(timeline!.svg).not.toContain('<g class="bar ');
    expect(timeline!.svg.match(/<g class="columns"/g)).toHaveLength(100);
    expect(timeline!.svg.match(/>up to 2 running(, [0-9.]+ queued)? at once</g)).toHaveLength(100);
    expect(wellFormed(timeline!.svg)).toBeUndefined();
    expect(wellFormed(runtimes!.svg)).toBeUndefined();
    // 100 strata of a band each, not 20,000 rows.
    expect(Number(/height="(\d+)"/.exec(timeline!.svg)![1])).toBeLessThan(3_000);
  });
});
