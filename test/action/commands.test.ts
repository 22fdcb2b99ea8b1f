/** The actions' own workflow commands (the bundles') write what @actions/core writes, byte for byte. */
import * as core from '@actions/core';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import * as ours from '../../src/action/commands.js';

let dir: string;
const saved = { ...process.env };
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'commands-'));
});
afterEach(async () => {
  process.env = { ...saved };
  process.exitCode = undefined;
  vi.restoreAllMocks();
  await rm(dir, { recursive: true, force: true });
});

/** What a function writes to stdout, to GITHUB_OUTPUT and to GITHUB_STEP_SUMMARY (delimiters made equal). */
async function written(f: () => unknown, withFiles: boolean): Promise<string[]> {
  const output = join(dir, 'output');
  const summary = join(dir, 'summary');
  await writeFile(output, '');
  await writeFile(summary, '');
  if (withFiles) {
    process.env.GITHUB_OUTPUT = output;
    process.env.GITHUB_STEP_SUMMARY = summary;
  } else {
    delete process.env.GITHUB_OUTPUT;
    delete process.env.GITHUB_STEP_SUMMARY;
  }
  let out = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    out += String(chunk);
    return true;
  });
  await f();
  vi.restoreAllMocks();
  const files = [await readFile(output, 'utf8'), await readFile(summary, 'utf8')];
  return [out, ...files].map((s) => s.replace(/ghadelimiter_[0-9a-f-]+/g, 'DELIMITER'));
}

const messages = ['plain', 'two\nlines\r\nand 100%', 'a: b, c', ''];
const properties = [
  {},
  { title: 'rule' },
  { title: 'sch:ema', file: 'a,b/c.yml', startLine: 3, startColumn: 7 },
  { title: '', file: 'x.yml', startLine: 0 },
];

it('annotations, log lines and failures', async () => {
  for (const withFiles of [true, false]) {
    for (const m of messages) {
      for (const p of properties) {
        expect(await written(() => ours.error(m, p), withFiles)).toEqual(
          await written(() => core.error(m, p), withFiles),
        );
        expect(await written(() => ours.warning(m, p), withFiles)).toEqual(
          await written(() => core.warning(m, p), withFiles),
        );
        expect(await written(() => ours.notice(m, p), withFiles)).toEqual(
          await written(() => core.notice(m, p), withFiles),
        );
      }
      expect(await written(() => ours.info(m), withFiles)).toEqual(await written(() => core.info(m), withFiles));
      expect(await written(() => ours.setSecret(m), withFiles)).toEqual(
        await written(() => core.setSecret(m), withFiles),
      );
      expect(await written(() => ours.setFailed(m), withFiles)).toEqual(
        await written(() => core.setFailed(m), withFiles),
      );
      expect(process.exitCode).toBe(1);
    }
  }
});

it('outputs, with GITHUB_OUTPUT and without', async () => {
  for (const withFiles of [true, false]) {
    for (const value of [3, 'a\nb', '', { x: [1] }]) {
      expect(await written(() => ours.setOutput('files', value), withFiles)).toEqual(
        await written(() => core.setOutput('files', value), withFiles),
      );
    }
  }
});

it('inputs', () => {
  process.env.INPUT_MANIFESTS = '  campaigns\nother  ';
  process.env['INPUT_CHECK-WORKFLOW'] = 'true';
  process.env.INPUT_WITH_SPACE = 'x';
  for (const name of ['manifests', 'check-workflow', 'with space', 'absent']) {
    expect(ours.getInput(name)).toBe(core.getInput(name));
  }
});
