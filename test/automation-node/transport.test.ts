/**
 * SshTransport.run against the test automation node (scripts/automation-node): plain words go
 * through the gate as they are and come back as the command's output and status, globs
 * expand there, stdin arrives, a command off the key's list and the shell of `exec` are
 * UserErrors that say what to do, SFTP works where the key allows it, and a command that
 * outlives its timeout leaves the transport usable. The node here is this file's own (its
 * own directory and port), so that its deliberate refusals reach no other test's log.
 */
import { execFile } from 'node:child_process';
import { constants } from 'node:fs';
import { mkdir, mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SshTransport } from '../../src/exec/transport/ssh.js';
import { LinkError } from '../../src/exec/transport/transport.js';
import { clusterIsUp } from '../helpers/slurm-cluster.js';
import {
  type AutomationNode,
  type Policy,
  automationNodeDown,
  automationNodeUp,
  gateLog,
  gateLogMark,
} from './fixture.js';

const DIR = join(tmpdir(), 'campaign-automation-transport');
const PORT = 16033;

let node: AutomationNode | undefined;
let scratch: string;
const transports = new Map<Policy, SshTransport>();

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'automation-transport-'));
  for (const d of ['a', 'b']) {
    await mkdir(join(scratch, d));
    await writeFile(join(scratch, d, 'x'), `${d.toUpperCase()}\n`);
  }
  node = await automationNodeUp(DIR, PORT);
}, 90_000);

afterAll(async () => {
  await Promise.all([...transports.values()].map((t) => t.close()));
  await automationNodeDown(DIR);
  await rm(scratch, { recursive: true, force: true });
});

beforeEach((ctx) => {
  if (!node) ctx.skip();
});

/** One transport per policy for the whole file, as campaign keeps one connection. */
function transport(policy: Policy): SshTransport {
  let t = transports.get(policy);
  if (!t) {
    t = new SshTransport({
      target: node!.target,
      hostKeyFingerprint: node!.fingerprint,
      keyFile: node!.keys[policy],
      commandTimeoutMs: 20_000,
      fileTimeoutMs: 10_000,
      retryDelaysMs: [],
    });
    transports.set(policy, t);
  }
  return t;
}

/** Runs `act` and expects the gate to have refused nothing meanwhile (this file's tests run one at a time). */
async function noneRefused(act: () => Promise<void>): Promise<void> {
  const mark = await gateLogMark(node!);
  await act();
  const lines = await gateLog(node!, mark);
  expect(lines.length).toBeGreaterThan(0);
  expect(lines.filter((l) => l.verdict !== 'run')).toEqual([]);
}

describe('run: plain words through the gate', () => {
  it('gives back the output and exit status of a command on the list', async () => {
    await noneRefused(async () => {
      expect(await transport('all').run(['id', '-un'])).toEqual({ code: 0, stdout: `${node!.user}\n`, stderr: '' });
      const missing = await transport('all').run(['ls', join(scratch, 'nothing-here')]);
      expect(missing.code).toBe(2);
      expect(missing.stderr).toContain('No such file or directory');
    });
  });

  it('squeue with a format (the all key)', async (ctx) => {
    if (!clusterIsUp('automation node transport: squeue through the gate')) return ctx.skip();
    await noneRefused(async () => {
      const r = await transport('all').run(['squeue', '-h', '-o', '%i@%j']);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
    });
  });

  it('expands a glob word there: two files in one command; one matching nothing stays literal', async () => {
    await noneRefused(async () => {
      expect((await transport('all').run(['cat', { glob: `${scratch}/*/x` }])).stdout).toBe('A\nB\n');
      const none = await transport('all').run(['cat', { glob: `${scratch}/*/none` }]);
      expect(none.code).not.toBe(0);
      expect(none.stderr).toContain(`${scratch}/*/none`);
    });
  });

  it('passes stdin to the command', async () => {
    await noneRefused(async () => {
      expect((await transport('all').run(['cat'], { stdin: 'hello' })).stdout).toBe('hello');
    });
  });

  it('SFTP works with the all key: writeFile, readFile, stat, mkdirp, realpath', async () => {
    const t = transport('all');
    await noneRefused(async () => {
      const dir = join(scratch, 'made', 'deeper');
      await t.mkdirp(dir);
      await t.writeFile(join(dir, 'f.txt'), 'via sftp\n');
      expect(await t.readFile(join(dir, 'f.txt'))).toBe('via sftp\n');
      expect(await t.stat(join(dir, 'f.txt'))).toMatchObject({ size: 9, isFile: true });
      expect(await t.realpath(join(dir, '..', 'deeper', 'f.txt'))).toBe(join(dir, 'f.txt'));
    });
  });
});

describe('run: what the node refuses, said as what to do', () => {
  it("a command off the key's list: a UserError naming it and the wrapper, not the whole command line", async () => {
    const e = await transport('transfer')
      .run(['squeue', '-h', '-o', '%i@%j'])
      .then(
        () => new Error('not refused'),
        (err: unknown) => err as Error,
      );
    expect(e).toMatchObject({ name: 'UserError' });
    expect(e.message).toMatch(/\(transfer_commands\.sh\) refused `squeue`/);
    expect(e.message).toMatch(/fix: ask the centre for a key bound to a list that has `squeue`/);
    expect(e.message).not.toContain('%i@%j');
  });

  it("exec's shell: a UserError saying it is an automation node, pointing at cluster.restricted", async () => {
    await expect(transport('all').exec('true')).rejects.toThrow(
      expect.objectContaining({
        name: 'UserError',
        message: expect.stringMatching(
          /runs a forced command \(allowed_commands\.sh\) .*it is an automation node.*fix: set cluster\.restricted: true/,
        ),
      }),
    );
  });

  it("the slurm key's SFTP refusal stays a UserError", async () => {
    await expect(transport('slurm').readFile(join(scratch, 'a', 'x'))).rejects.toThrow(
      expect.objectContaining({ name: 'UserError', message: expect.stringMatching(/allows no file transfer/) }),
    );
  });
});

describe('run: a command that outlives its timeout', () => {
  it('rejects with a LinkError, and the transport goes on', async () => {
    const fifo = join(scratch, 'never-written');
    await promisify(execFile)('mkfifo', [fifo]);
    const t = transport('all');
    // cat blocks opening a FIFO that nobody writes.
    const timedOut = await t.run(['cat', fifo], { timeoutMs: 1_000 }).catch((e: unknown) => e);
    expect(timedOut).toBeInstanceOf(LinkError);
    expect((timedOut as Error).message).toMatch(/`cat` did not finish within 1000 ms .*may still be running there/);
    expect((await t.run(['echo', 'still', 'here'])).stdout).toBe('still here\n');
    // Lets cat end, if it still waits there: a writer that opens the FIFO and closes it.
    await open(fifo, constants.O_WRONLY | constants.O_NONBLOCK).then(
      (h) => h.close(),
      () => {},
    );
  });
});
