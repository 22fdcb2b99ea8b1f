/**
 * The generated workflow's push trigger follows the code (DESIGN rule 11): a pushed edit to a
 * file the campaign's phases run starts the campaign, as a pushed edit to its manifest does.
 */
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { manifest as manifestSchema } from '../../src/manifest/schema.js';
import { codeEntry, snapshotId, type CodeFacts } from '../../src/plan/code.js';
import { planCampaign } from '../../src/plan/plan.js';
import { renderWorkflow } from '../../src/workflow/render.js';

const MANIFEST = {
  campaign: 'coded',
  cluster: { executor: 'slurm', login: 'me@login.example.org' },
  workdir: '/scratch/me/runs',
  code: { paths: ['train.py', 'src/', 'eval.py', 'README.md'] },
  defaults: { walltime: '1h' },
  phases: [
    { name: 'train', code: { paths: ['train.py', 'src/'] }, grid: { seed: [1] }, command: 'python train.py' },
    { name: 'evaluate', code: { paths: ['eval.py'] }, grid: { seed: [1] }, command: 'python eval.py' },
  ],
};

const FILES = {
  'train.py': codeEntry('file', 'a'),
  'src/model.py': codeEntry('file', 'b'),
  'eval.py': codeEntry('file', 'c'),
  'README.md': codeEntry('file', 'd'),
};
const CODE: CodeFacts = { id: snapshotId(FILES), commit: null, dirty: [], files: FILES };
const OPTIONS = {
  manifest: 'campaigns/coded.yml',
  uses: 'o/c@v1',
  branch: 'main',
  budget: '5h',
  runsOn: 'ubuntu-latest',
};

describe('the push trigger of a campaign with code', () => {
  it('fires on the manifest and on the code its phases run, each folder with what is under it', () => {
    const plan = planCampaign(manifestSchema.parse(MANIFEST), undefined, undefined, CODE);
    const on = (parse(renderWorkflow(plan, OPTIONS)) as { on: { push: { paths: string[] } } }).on;
    // README.md is in the snapshot, but no phase's definition depends on it.
    expect(on.push.paths).toEqual(['campaigns/coded.yml', 'eval.py', 'src/**', 'train.py']);
  });

  it('fires on the manifest alone where it declares no code', () => {
    const plain = JSON.parse(JSON.stringify(MANIFEST)) as Record<string, unknown> & { phases: { code?: unknown }[] };
    delete plain.code;
    for (const phase of plain.phases) delete phase.code;
    const plan = planCampaign(manifestSchema.parse(plain));
    const on = (parse(renderWorkflow(plan, OPTIONS)) as { on: { push: { paths: string[] } } }).on;
    expect(on.push.paths).toEqual(['campaigns/coded.yml']);
  });
});
