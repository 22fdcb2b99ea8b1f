/**
 * The snapshot read from a real git repository (app/code.ts): its id follows the tracked files
 * under the declared paths as the working tree holds them, and nothing else: untracked or
 * ignored files, modification times and files outside the paths leave it as it was.
 */
import { execFileSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { lintWithRepository } from '../../src/app/code.js';
import { UserError } from '../../src/errors.js';

const roots: string[] = [];
afterAll(() => Promise.all(roots.map((r) => rm(r, { recursive: true, force: true }))));

const MANIFEST = (paths: string) => `campaign: c
cluster: { executor: local }
workdir: runs
code: { paths: ${paths}, max_size: 1M }
defaults: { walltime: 1m }
phases:
  - name: train
    grid: { seed: [1] }
    command: python train.py \${seed}
`;

async function repo(): Promise<{ dir: string; id: () => Promise<string> }> {
  const dir = await mkdtemp(join(tmpdir(), 'campaign-code-'));
  roots.push(dir);
  await mkdir(join(dir, 'src'));
  await writeFile(join(dir, 'train.py'), 'print(1)\n');
  await writeFile(join(dir, 'src', 'model.py'), 'W = 1\n');
  await writeFile(join(dir, 'README.md'), 'not code\n');
  await writeFile(join(dir, '.gitignore'), '*.ckpt\n');
  await writeFile(join(dir, 'c.yml'), MANIFEST('[train.py, src/]'));
  execFileSync('git', ['init', '-q'], { cwd: dir });
  execFileSync('git', ['add', '-A'], { cwd: dir });
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@e', 'commit', '-qm', 'x'], { cwd: dir });
  const file = join(dir, 'c.yml');
  const id = async (): Promise<string> => {
    const { code } = await lintWithRepository(file, await readFile(file, 'utf8'));
    return code!.facts.id;
  };
  return { dir, id };
}

describe('the snapshot of a repository', () => {
  it('is the same whatever lies untracked, ignored or outside the paths, and whatever the times', async () => {
    const r = await repo();
    const first = await r.id();
    await writeFile(join(r.dir, 'src', 'scratch.py'), 'untracked\n');
    await writeFile(join(r.dir, 'src', 'weights.ckpt'), 'ignored\n');
    await writeFile(join(r.dir, 'README.md'), 'edited, and not code\n');
    await utimes(join(r.dir, 'train.py'), new Date(0), new Date(0));
    await writeFile(join(r.dir, 'c.yml'), MANIFEST('[src/, train.py]'));
    expect(await r.id()).toBe(first);
  });

  it("changes with a tracked file's content or mode, as the working tree holds them", async () => {
    const r = await repo();
    const first = await r.id();
    await writeFile(join(r.dir, 'src', 'model.py'), 'W = 2\n');
    const edited = await r.id();
    expect(edited).not.toBe(first);
    await chmod(join(r.dir, 'src', 'model.py'), 0o755);
    expect(await r.id()).not.toBe(edited);
  });

  it('refuses a snapshot over its size, naming the largest files and the fix', async () => {
    const r = await repo();
    await writeFile(join(r.dir, 'src', 'data.bin'), Buffer.alloc(2 * 2 ** 20));
    execFileSync('git', ['add', 'src/data.bin'], { cwd: r.dir });
    const e = await r.id().catch((x: unknown) => x);
    expect(e).toBeInstanceOf(UserError);
    expect((e as UserError).message).toMatch(/more than 1\.0 MiB; its largest files: src\/data\.bin \(2\.0 MiB\)/);
    expect((e as UserError).message).toMatch(/data belongs in inputs, not code/);
  });
});
