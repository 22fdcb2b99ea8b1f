/**
 * examples/gpu-box.yml works as docs/SSH-GPU.md shows: it lints and plans, and `scripts/gpu-stand-in/demo`
 * runs it to its end over real SSH against the nvidia-smi stand-in.
 */
import { spawn } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { readState, REPO, runCli, useBuiltCliAndTemp } from '../../helpers/cli.js';
import { sshdUp, type Sshd } from './helpers.js';

const tempRoot = useBuiltCliAndTemp('gpu-box');
let sshd: Sshd | undefined;
beforeAll(async () => {
  sshd = await sshdUp();
}, 180_000);

const EXAMPLE = join(REPO, 'examples', 'gpu-box.yml');

describe('examples/gpu-box.yml', () => {
  it('lints without errors and plans 36 tasks with a two-task smoke stage', async () => {
    const lint = await runCli(['lint', EXAMPLE]);
    expect(lint.code, lint.stdout + lint.stderr).toBe(0);
    const plan = await runCli(['plan', EXAMPLE, '--format', 'json']);
    expect(plan.code).toBe(0);
    const p = JSON.parse(plan.stdout) as { phases: { tasks: unknown[]; smoke: unknown[] }[] };
    expect(p.phases[0]!.tasks).toHaveLength(36);
    expect(p.phases[0]!.smoke).toHaveLength(2);
  });

  it('runs to its end with scripts/gpu-stand-in/demo: every task completed, each output written on a GPU of the stand-in', async (ctx) => {
    if (!sshd) return ctx.skip();
    const dir = join(tempRoot(), 'demo');
    const child = spawn('bash', [join(REPO, 'scripts/gpu-stand-in/demo'), dir], {
      env: { ...process.env, POLL: '0.5' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr.on('data', (b: Buffer) => (out += b.toString()));
    const code = await new Promise<number | null>((r) => child.on('close', r));
    expect(code, out).toBe(0);
    expect(out).toContain('**Every task completed.**');
    const state = await readState(join(dir, 'state'));
    expect(Object.values(state.tasks).filter((t) => t.status === 'completed')).toHaveLength(38);
    // Each figure with the record of what made it beside it, hidden from a glob over the results.
    const files = await readdir(join(dir, 'work', 'figures'));
    const figures = files.filter((f) => !f.startsWith('.'));
    expect(figures).toHaveLength(36);
    expect(files.filter((f) => f.endsWith('.provenance.json')).sort()).toEqual(
      figures.map((f) => `.${f}.provenance.json`).sort(),
    );
    const table = await readFile(join(dir, 'gpus', 'table'), 'utf8');
    for (const f of figures) {
      const r = JSON.parse(await readFile(join(dir, 'work', 'figures', f), 'utf8')) as { gpu: string; out: string };
      expect(table).toContain(`, ${r.gpu}, `);
      expect(r.out).toBe(`figures/${f}`);
      const made = JSON.parse(await readFile(join(dir, 'work', 'figures', `.${f}.provenance.json`), 'utf8')) as {
        gpus: string[];
      };
      expect(made.gpus).toContain(r.gpu);
    }
  }, 300_000);
});
