/**
 * A state file that is not a regular file (a FIFO planted where state.json or its journal
 * belongs) is said as such, with the way out, by the commands that read it: never a hang, which
 * a plain open of a FIFO with no writer is.
 */
import { execFileSync } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, useBuiltCliAndTemp, writeManifest } from '../helpers/cli.js';

const tempRoot = useBuiltCliAndTemp('state-file-type');

const manifest = `campaign: fifo
cluster: { executor: local }
workdir: work
phases:
  - name: p
    command: echo hi > \${output}
    output: out.txt
    walltime: 1m
`;

describe('a state file that is not a file', () => {
  it.each(['state.json', 'state.journal.jsonl'])(
    'a FIFO as %s: status, summary and plan exit 2 naming it, at once',
    async (name) => {
      const dir = join(tempRoot(), name);
      const state = join(dir, 'state');
      await mkdir(state, { recursive: true });
      const file = await writeManifest(dir, manifest);
      if (name !== 'state.json') {
        // A journal is read only after a state.json in journal mode names the save it holds.
        expect((await runCli(['run', file, '--state-dir', state, '--poll', '0.2'])).code).toBe(0);
        const { writeFile, readFile } = await import('node:fs/promises');
        const saved = JSON.parse(await readFile(join(state, 'state.json'), 'utf8')) as Record<string, unknown>;
        await writeFile(join(state, 'state.json'), JSON.stringify({ ...saved, journalSeq: 1 }));
      }
      execFileSync('mkfifo', [join(state, name)]);
      for (const command of ['status', 'summary', 'plan']) {
        // Without the check each would wait for a writer until this limit ends it.
        const r = await runCli([command, file, '--state-dir', state], { timeoutMs: 20_000 });
        expect(r.code, `${command}: ${r.stderr}`).toBe(2);
        expect(r.stderr).toContain(`${name} is not a file (fix: move it away`);
      }
    },
    90_000,
  );
});
