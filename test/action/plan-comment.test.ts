/**
 * The Action's `plan-comment` (in-process `run`, a real git checkout, GitHub's REST API on the
 * local stand-in): a pull request changing a manifest gets one comment per campaign with the
 * plan's difference from its base commit, which the next push updates instead of repeating; a
 * manifest new in the pull request counts every task as added, a deleted one every task as
 * removed; an unchanged one gets none; a
 * fork's pull request (a read-only token) gets the job summary only, and the step passes.
 */
import { execFile } from 'node:child_process';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readMainSettings } from '../../src/action/settings.js';
import { UserError } from '../../src/errors.js';
import { REPO, makeTemp } from '../helpers/cli.js';
import { GitHubStandin } from '../helpers/github-standin.js';

const git = promisify(execFile);

let standin: GitHubStandin;
let githubServices: typeof import('../../src/action/services/index.js').githubServices;
let run: typeof import('../../src/action/main.js').run;
beforeAll(async () => {
  standin = await GitHubStandin.start();
  ({ githubServices } = await import('../../src/action/services/index.js'));
  ({ run } = await import('../../src/action/main.js'));
});
afterAll(async () => {
  await standin?.close();
});

const manifest = (name: string, seeds: number[], command: string): string => `campaign: ${name}
cluster:
  executor: slurm
  partitions: [{ name: short, max_time: 4h }]
workdir: w
phases:
  - name: train
    grid: { seed: [${seeds.join(', ')}] }
    command: ${command} \${seed} > \${output}
    output: models/s\${seed}.json
    walltime: 1h
    resources: { gpus: 1 }
  - name: eval
    depends_on: train
    grid: { seed: [${seeds.join(', ')}] }
    preconditions: [{ exists: 'models/s\${seed}.json' }]
    command: python eval.py \${seed} > \${output}
    output: eval/s\${seed}.json
    walltime: 10m
`;

/** A checkout whose first commit is the base branch's, with `files` written over it (not committed, as a checkout of the head is). */
async function checkout(base: Record<string, string>): Promise<{ dir: string; sha: string }> {
  const dir = await makeTemp('plan-comment');
  await mkdir(join(dir, 'campaigns'));
  for (const [path, text] of Object.entries(base)) await writeFile(join(dir, path), text);
  const g = (...args: string[]) => git('git', args, { cwd: dir });
  await g('init', '-q', '-b', 'main');
  await g('add', '.');
  await g('-c', 'user.name=t', '-c', 'user.email=t@example.org', 'commit', '-q', '-m', 'base');
  return { dir, sha: (await g('rev-parse', 'HEAD')).stdout.trim() };
}

interface Outcome {
  failure: string | undefined;
  summary: string;
}

let pr = 0;

async function planComment(
  dir: string,
  event: { number: number; base: string; from?: string },
  token: string,
): Promise<Outcome> {
  const temp = await makeTemp('plan-comment-job');
  const eventPath = join(temp, 'event.json');
  const home = `${standin.owner}/${standin.repo}`;
  await writeFile(
    eventPath,
    JSON.stringify({
      action: 'synchronize',
      pull_request: {
        number: event.number,
        base: { sha: event.base, repo: { full_name: home } },
        head: { sha: standin.sha, repo: { full_name: event.from ?? home } },
      },
    }),
  );
  const env = standin.jobEnv(standin.newRun({ event: 'pull_request' }), { workspace: dir, job: 'plan' });
  await writeFile(join(temp, 'sum'), '');
  const saved = process.env;
  process.env = { ...saved, ...env, GITHUB_EVENT_PATH: eventPath, GITHUB_STEP_SUMMARY: join(temp, 'sum') };
  process.chdir(dir);
  try {
    const inputs: Record<string, string> = { command: 'plan-comment', manifest: 'campaigns', token };
    const failure = await run(
      readMainSettings((n) => inputs[n] ?? ''),
      githubServices(env, token),
      {
        job: 'plan',
        tempDir: temp,
      },
    );
    return { failure, summary: await readFile(join(temp, 'sum'), 'utf8') };
  } finally {
    process.env = saved;
    process.chdir(REPO);
  }
}

const commentsOn = (n: number) => standin.comments.filter((c) => c.issue === n);

describe('the plan as a pull-request comment (GitHub stand-in)', () => {
  it('writes one comment per changed campaign and updates it on the next push (GitHub stand-in)', async () => {
    const number = 100 + ++pr;
    const { dir, sha } = await checkout({
      'campaigns/a.yml': manifest('a', [1, 2], 'python train.py'),
      'campaigns/same.yml': manifest('same', [1], 'python train.py'),
      'campaigns/gone.yml': manifest('gone', [1], 'python train.py'),
    });
    const token = standin.issueToken(['pull-requests:write']);
    // A person's comment quoting the marker is not the campaign's.
    standin.comments.push({
      id: 1,
      issue: number,
      body: '<!-- campaign-plan: a -->\nlooks good',
      user: { login: 'someone', type: 'User' },
    });
    await writeFile(join(dir, 'campaigns/a.yml'), manifest('a', [1, 2, 3], 'python train.py --fast'));
    await writeFile(join(dir, 'campaigns/new.yml'), manifest('new', [1, 2], 'python train.py'));
    await rm(join(dir, 'campaigns/gone.yml'));

    const first = await planComment(dir, { number, base: sha }, token);
    expect(first.failure).toBeUndefined();
    const ours = () => commentsOn(number).filter((c) => c.user.login === 'github-actions[bot]');
    expect(ours().map((c) => c.body.split('\n', 1)[0])).toEqual([
      '<!-- campaign-plan: a -->',
      '<!-- campaign-plan: new -->',
      '<!-- campaign-plan: gone -->',
    ]);
    const a = ours()[0]!;
    // seed 3 is new in both phases; seeds 1 and 2 run again: train's command changed, and eval reads train's outputs.
    expect(a.body).toContain('**2 added, 0 removed, 4 run again**');
    expect(a.body).toContain('| `train` | 1 | 0 | 2 | 0 | command |');
    expect(a.body).toContain('| `eval` | 1 | 0 | 2 | 0 | upstream results |');
    expect(a.body).toContain('GPU-hours 2.0 → 3.0 (+1.0); walltime 2.3 → 3.5 (+1.2) task-hours');
    expect(ours()[1]!.body).toContain(
      '`campaigns/new.yml` is new in this pull request: every task is counted as added',
    );
    expect(ours()[2]!.body).toContain(
      '`campaigns/gone.yml` is deleted in this pull request: every task is counted as removed',
    );
    expect(ours()[2]!.body).toContain('**0 added, 2 removed, 0 run again**');
    expect(first.summary).toContain('<!-- campaign-plan: same -->');
    expect(first.summary).toContain('changes nothing of the plan');

    // The next push takes seed 3 out again: the same comment says so.
    await writeFile(join(dir, 'campaigns/a.yml'), manifest('a', [1, 2], 'python train.py --fast'));
    const second = await planComment(dir, { number, base: sha }, token);
    expect(second.failure).toBeUndefined();
    expect(ours().map((c) => c.id)).toEqual([a.id, ours()[1]!.id, ours()[2]!.id]);
    expect(ours()[0]!.body).toContain('**0 added, 0 removed, 4 run again**');
    expect(commentsOn(number)).toHaveLength(4);
    expect(standin.calls.filter((c) => c.method === 'PATCH' && c.status === 200)).not.toHaveLength(0);
  });

  it("edits only its own token's comment: another bot's or app's with the marker is left as it is (GitHub stand-in)", async () => {
    const number = 100 + ++pr;
    const { dir, sha } = await checkout({ 'campaigns/a.yml': manifest('a', [1], 'python train.py') });
    await writeFile(join(dir, 'campaigns/a.yml'), manifest('a', [1, 2], 'python train.py'));
    // Another app's comment, first line the marker: the job's token may edit it, and must not.
    const planted = '<!-- campaign-plan: a -->\n[Re-authenticate](https://example.org)';
    standin.comments.push({ id: 2, issue: number, body: planted, user: { login: 'other-app[bot]', type: 'Bot' } });
    const first = await planComment(dir, { number, base: sha }, standin.issueToken(['pull-requests:write']));
    expect(first.failure).toBeUndefined();
    expect(commentsOn(number).find((c) => c.id === 2)!.body).toBe(planted);
    const own = commentsOn(number).filter((c) => c.user.login === 'github-actions[bot]');
    expect(own.map((c) => c.body.split('\n', 1)[0])).toEqual(['<!-- campaign-plan: a -->']);

    // Under an app's token the comment is that app's: the job token's earlier one is not it.
    const app = standin.issueToken(['pull-requests:write'], 'campaign-app[bot]');
    await writeFile(join(dir, 'campaigns/a.yml'), manifest('a', [1, 2, 3], 'python train.py'));
    expect((await planComment(dir, { number, base: sha }, app)).failure).toBeUndefined();
    await writeFile(join(dir, 'campaigns/a.yml'), manifest('a', [1, 2, 3, 4], 'python train.py'));
    expect((await planComment(dir, { number, base: sha }, app)).failure).toBeUndefined();
    const byApp = commentsOn(number).filter((c) => c.user.login === 'campaign-app[bot]');
    expect(byApp).toHaveLength(1);
    expect(byApp[0]!.body).toContain('**6 added, 0 removed, 0 run again**');
    expect(commentsOn(number).find((c) => c.id === own[0]!.id)!.body).toBe(own[0]!.body);
    expect(commentsOn(number).find((c) => c.id === 2)!.body).toBe(planted);
  });

  it("writes only the job summary for a fork's pull request, whose token is read-only (GitHub stand-in)", async () => {
    const number = 100 + ++pr;
    const { dir, sha } = await checkout({ 'campaigns/a.yml': manifest('a', [1], 'python train.py') });
    await writeFile(join(dir, 'campaigns/a.yml'), manifest('a', [1], 'python train.py --fast'));
    const calls = standin.calls.length;
    const out = await planComment(dir, { number, base: sha, from: 'someone/experiments' }, standin.issueToken([]));
    expect(out.failure).toBeUndefined();
    expect(out.summary).toContain('**0 added, 0 removed, 2 run again**');
    expect(commentsOn(number)).toEqual([]);
    expect(standin.calls.length).toBe(calls);
  });

  it('says to fetch the base commit when the checkout lacks it', async () => {
    const { dir } = await checkout({ 'campaigns/a.yml': manifest('a', [1], 'python train.py') });
    const missing = 'f'.repeat(40);
    const e = await planComment(dir, { number: 1, base: missing }, standin.issueToken([])).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(UserError);
    expect((e as UserError).message).toContain(`base commit ${missing} is not in the checkout`);
    expect((e as UserError).problems[0]!.fix).toContain('fetch-depth: 0');
  });
});
