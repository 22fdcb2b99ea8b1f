/**
 * The job summary the Action writes (in-process `run`, local executor, GitHub's services on the
 * local stand-in): a Mermaid chart of the stages and a link to the state artifact instead of the
 * pictures and tables, which exist only in the artifact; summary.md there keeps its links.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { readMainSettings } from '../../src/action/settings.js';
import { REPO, makeTemp } from '../helpers/cli.js';
import { GitHubStandin } from '../helpers/github-standin.js';
import { chromium, mermaidBlocks, parseMermaid } from '../helpers/mermaid.js';

let standin: GitHubStandin;
let githubServices: typeof import('../../src/action/services/index.js').githubServices;
let run: typeof import('../../src/action/main.js').run;
beforeAll(async () => {
  standin = await GitHubStandin.start();
  // @actions/github reads the API's address when it is first loaded, as in a job's process.
  process.env.GITHUB_API_URL = standin.url;
  ({ githubServices } = await import('../../src/action/services/index.js'));
  ({ run } = await import('../../src/action/main.js'));
});
afterAll(async () => {
  await standin?.close();
});

const manifest = (workdir: string): string => `campaign: job-summary
cluster:
  executor: local
  name: this-machine
  max_parallel: 2
workdir: ${workdir}
defaults:
  resources: { cpus: 1 }
phases:
  - name: train
    grid: { lr: [0.1, 0.01], seed: [1, 2] }
    command: >
      printf '{"step": 1, "loss": %s}\\n' \${lr} > \${output}
    output: out/lr\${lr}_seed\${seed}.jsonl
    walltime: 5m
    smoke:
      tasks: 1
      trigger:
        - check: all_completed
    results: { metrics: [loss], replicates: seed }
`;

/** Runs one command of the Action as a job of `ghRun`; its failure message and job summary. */
async function job(
  workspace: string,
  ghRun: ReturnType<GitHubStandin['newRun']>,
  id: string,
  command: string,
): Promise<{ failure: string | undefined; summary: string; stateDir: string }> {
  const temp = await makeTemp(`job-${id}`);
  const env = standin.jobEnv(ghRun, { workspace, job: id });
  await writeFile(join(temp, 'output'), '');
  await writeFile(join(temp, 'sum'), '');
  const saved = process.env;
  // @actions/core and @actions/artifact read the runner's variables from the process.
  process.env = { ...saved, ...env, GITHUB_OUTPUT: join(temp, 'output'), GITHUB_STEP_SUMMARY: join(temp, 'sum') };
  process.chdir(workspace);
  try {
    const inputs: Record<string, string> = { command, manifest: 'campaigns/c.yml', budget: '5m', handover: 'none' };
    const services = githubServices(env, standin.issueToken(['actions:read', 'actions:write', 'checks:write']));
    const failure = await run(
      readMainSettings((n) => inputs[n] ?? ''),
      services,
      { job: id, tempDir: temp },
    );
    return {
      failure,
      summary: await readFile(join(temp, 'sum'), 'utf8'),
      stateDir: join(temp, 'campaign-state', 'job-summary'),
    };
  } finally {
    process.env = saved;
    process.chdir(REPO);
  }
}

/** Markdown links and images whose target is not an absolute URL: they lead nowhere in a job summary. */
const relativeLinks = (md: string): string[] =>
  [...md.matchAll(/!?\[[^\]\n]*\]\(([^)\s]*)[^)]*\)/g)].map((m) => m[1]!).filter((t) => !/^https:\/\//.test(t));

test('the job summary: Mermaid charts of the stages and the results, the state artifact linked, no relative link; summary.md keeps its pictures', async () => {
  const workspace = await makeTemp('job-summary');
  await mkdir(join(workspace, 'campaigns'));
  await writeFile(join(workspace, 'campaigns/c.yml'), manifest(join(workspace, 'work')));
  const ghRun = standin.newRun();

  const advanced = await job(workspace, ghRun, 'advance', 'advance');
  expect(advanced.failure).toBeUndefined();
  const md = advanced.summary;
  expect(md).toMatch(/^## campaign job-summary\n/);
  // One heading order: the job's, then the summary's sections under it; one table of the phases.
  expect(md.match(/^#{1,2} .*/gm)).toEqual(['## campaign job-summary']);
  expect(md.match(/^\| phase \| status \|/gm)).toHaveLength(1);
  expect(md).toMatch(/^### Results: train$/m);
  // A run of seconds: its axis tells its ticks apart.
  expect(md).toMatch(
    /```mermaid\ngantt\n {2}title Campaign job-summary\n {2}dateFormat YYYY-MM-DD HH:mm:ss\n {2}axisFormat %H:%M:%S\n {2}section train\n {2}smoke :done, [\d-]+ [\d:]+, [\d-]+ [\d:]+\n {2}full :done, [\d-]+ [\d:]+, [\d-]+ [\d:]+\n```/,
  );
  const artifact = standin.artifacts.find((a) => a.runId === ghRun.id)!;
  const page = `https://github.com/${standin.owner}/${standin.repo}/actions/runs/${ghRun.id}/artifacts/${artifact.id}`;
  expect(md).toContain(`State artifact: [${artifact.name}](${page})`);
  expect(md).toContain('All of them in the state artifact: `results-train.csv`; per task: `results-train-tasks.csv`.');
  expect(relativeLinks(md)).toEqual([]);
  // The results picture as a chart GitHub draws: the mean loss over the seeds per learning rate.
  expect(md).toContain(
    '```mermaid\nxychart-beta\n  title "loss of train (mean over seed)"\n  x-axis "lr" ["0.01", "0.1"]\n',
  );
  expect(md).toMatch(/^ {2}line \[0\.01, 0\.1\]$/m);
  if (chromium) {
    // Mermaid's own parser reads every chart (and refuses a broken one: the check can fail).
    const blocks = mermaidBlocks(md);
    expect(blocks.map((b) => b.split('\n')[0])).toEqual(['gantt', 'xychart-beta']);
    const verdicts = await parseMermaid([...blocks, 'xychart-beta\n  x-axis [a, b\n  line [1, 2]\n']);
    expect(verdicts.slice(0, -1)).toEqual([undefined, undefined]);
    expect(verdicts.at(-1)).toMatch(/Parse error/);
  } else
    console.warn("\n*** the job summary's Mermaid NOT parsed: no chromium (scripts/ensure-tools installs it) ***\n");

  // summary.md, saved in the artifact with the files it links, keeps its links.
  const zip = artifact.bytes!.toString('latin1');
  for (const f of ['summary.md', 'timeline.svg', 'results-train.svg']) expect(zip).toContain(f);
  const file = await readFile(join(advanced.stateDir, 'summary.md'), 'utf8');
  expect(file).toContain('](timeline.svg)');
  expect(file).toContain('[results-train.csv](results-train.csv)');
  expect(file).not.toContain('```mermaid');

  // The summary command links the artifact it restored, from the run that made it.
  const summary = await job(workspace, ghRun, 'summary', 'summary');
  expect(summary.failure).toBeUndefined();
  expect(summary.summary).toContain(`State artifact: [${artifact.name}](${page})`);
  expect(summary.summary).toContain('```mermaid\ngantt\n');
  expect(relativeLinks(summary.summary)).toEqual([]);
});
