/**
 * The automation node fixture against a real sshd and real OpenSSH clients (and the project's
 * SshTransport): what the gate runs, what it refuses and logs, SFTP per policy, what the keys'
 * `restrict` stops, and Slurm's commands on the test cluster through it. The node here is this
 * file's own (its own directory and port), so that its deliberate refusals never reach the
 * log that other tests read for "no refused command".
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { SshTransport } from '../../src/exec/transport/ssh.js';
import { clusterIsUp } from '../helpers/slurm-cluster.js';
import {
  type AutomationNode,
  type Policy,
  SCRIPTS,
  automationNodeDown,
  automationNodeIsUp,
  automationNodeUp,
  closeShared,
  gateLog,
  gateLogMark,
  openShared,
  opensshOptions,
  runProgram,
  sftp,
  ssh,
} from './fixture.js';

const DIR = join(tmpdir(), 'campaign-automation-gate-test');
const PORT = 16031;
const SFTP_SERVER = '/usr/lib/openssh/sftp-server';
const WRAPPER: Record<Policy, string> = {
  all: 'allowed_commands.sh',
  slurm: 'slurm_commands.sh',
  transfer: 'transfer_commands.sh',
};

let node: AutomationNode | undefined;
let scratch: string;
const transports: SshTransport[] = [];

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'automation-gate-'));
  await mkdir(join(scratch, 'd'));
  await writeFile(join(scratch, 'd', 'a.txt'), 'A\n');
  await writeFile(join(scratch, 'd', 'b.txt'), 'B\n');
  await writeFile(join(scratch, 'd', 'c.log'), 'C\n');
  await writeFile(join(scratch, 'up.txt'), 'uploaded\n');
  node = await automationNodeUp(DIR, PORT);
  if (node) await openShared(node);
}, 90_000);

afterAll(async () => {
  await Promise.all(transports.map((t) => t.close()));
  if (node) await closeShared(node);
  await automationNodeDown(DIR);
  await rm(scratch, { recursive: true, force: true });
});

beforeEach((ctx) => {
  if (!node) ctx.skip();
});

function transport(policy: Policy): SshTransport {
  const t = new SshTransport({
    target: node!.target,
    hostKeyFingerprint: node!.fingerprint,
    keyFile: node!.keys[policy],
    fileTimeoutMs: 10_000,
    retryDelaysMs: [],
  });
  transports.push(t);
  return t;
}

/** What the gate logged while `act` ran: where tests run at once, their lines too. */
async function logged(act: () => Promise<void>) {
  const mark = await gateLogMark(node!);
  await act();
  return gateLog(node!, mark);
}

/**
 * Asks for `command` and expects the gate to refuse it: status 1, its message, and one log line
 * for it (found by the command, so that tests may run at once).
 */
async function expectRefused(policy: Policy, command: string | undefined, reason: string): Promise<void> {
  let r = { code: 0, stdout: '', stderr: '' };
  const asked = (command ?? '').replaceAll('\n', '\\n');
  const lines = await logged(async () => {
    r = await ssh(node!, policy, command);
  });
  // As on a real node: the refusal on stdout, and exit status 0.
  expect(r.code, command).toBe(0);
  expect(r.stderr, command).not.toContain('Command rejected');
  expect(r.stdout, command).toBe(`Command rejected by ${WRAPPER[policy]}: ${command ?? ''}\n`);
  expect(
    lines.filter((l) => l.command === asked && l.policy === policy).map((l) => [l.verdict, l.policy, l.reason]),
  ).toEqual([['refused', policy, reason]]);
}

/** Sends an SFTP client's first packet (SSH_FXP_INIT, version 3) as `command`, and gives back the answer. */
function sftpHello(policy: Policy, command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const args = [...opensshOptions(node!, policy), '-p', String(node!.port), `${node!.user}@127.0.0.1`, command];
    const child = spawn('ssh', args, { stdio: ['pipe', 'pipe', 'ignore'], timeout: 30_000 });
    let answer = '';
    child.stdout.on('data', (b: Buffer) => {
      answer += b.toString('latin1');
      // The server ends at the input's end, maybe before it has answered: close it only then.
      if (answer.includes('posix-rename@openssh.com')) child.stdin.end();
    });
    child.on('error', reject);
    child.on('close', () => resolve(answer));
    // A refusing gate may be gone before the packet arrives.
    child.stdin.on('error', () => {});
    child.stdin.write(Buffer.from([0, 0, 0, 5, 1, 0, 0, 0, 3]));
  });
}

describe.concurrent('the gate runs allowed commands as plain words', () => {
  it('runs the always-allowed commands and gives back their output and exit status', async () => {
    const lines = await logged(async () => {
      expect(await ssh(node!, 'all', 'echo hello  \t  world')).toEqual({
        code: 0,
        stdout: 'hello world\n',
        stderr: '',
      });
      expect((await ssh(node!, 'all', 'uname -s')).stdout).toBe('Linux\n');
      expect((await ssh(node!, 'all', 'id -un')).stdout).toBe(`${node!.user}\n`);
      expect((await ssh(node!, 'all', 'groups')).code).toBe(0);
      expect((await ssh(node!, 'all', `cat ${scratch}/d/a.txt`)).stdout).toBe('A\n');
      const missing = await ssh(node!, 'all', `ls ${scratch}/nothing-here`);
      expect(missing.code).toBe(2);
      expect(missing.stderr).toContain('No such file or directory');
    });
    // Other tests run at once: their lines are not this test's.
    const mine = lines.filter((l) =>
      /^(echo hello|uname -s|id -un|groups|cat .*a\.txt|ls .*nothing-here)/.test(l.command),
    );
    expect(mine.map((l) => l.verdict)).toEqual(['run', 'run', 'run', 'run', 'run', 'run']);
    expect(mine[0]).toMatchObject({ policy: 'all', reason: '-', command: 'echo hello  \t  world' });
  });

  it('matches by first characters, not by words: lscpu passes as ls', async () => {
    const r = await ssh(node!, 'all', 'lscpu --version');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('lscpu');
  });

  it('globs each word; a pattern that matches nothing stays as it is', async () => {
    expect((await ssh(node!, 'all', `cat ${scratch}/d/*.txt`)).stdout).toBe('A\nB\n');
    expect((await ssh(node!, 'all', `ls ${scratch}/d/?.log`)).stdout).toBe(`${scratch}/d/c.log\n`);
    const none = await ssh(node!, 'all', `cat ${scratch}/d/*.none`);
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/\*\.none'?: No such file or directory/);
  });

  it('expands nothing else: variables, ~ and braces stay literal', async () => {
    expect((await ssh(node!, 'all', 'echo $HOME ~ {a,b} ${X:-y}')).stdout).toBe('$HOME ~ {a,b} ${X:-y}\n');
  });

  it('passes | between non-blank characters as a literal character (squeue formats need it)', async () => {
    expect((await ssh(node!, 'all', 'echo %i|%j|%T %.10i|x')).stdout).toBe('%i|%j|%T %.10i|x\n');
  });
});

describe.concurrent('the gate refuses, and logs, what is not on the list or needs a shell', () => {
  it.each([
    ['all', 'bash -c x'],
    ['all', 'sh -c id'],
    ['all', 'sacct -X -n'],
    ['all', 'sinfo'],
    ['all', 'srun hostname'],
    ['all', 'timeout 5 squeue'],
    ['all', 'exec squeue'],
    ['transfer', 'scontrol show config'],
  ] as const)('%s: %s is not on the list', async (policy, c) => {
    await expectRefused(policy, c, 'not on the list');
  });

  it.each([
    'cat a; id',
    'cat a;id',
    'ls > f',
    'ls >f',
    'cat < f',
    'echo a && id',
    'echo a & id',
    'echo $(id)',
    'echo `id`',
    "echo 'a b'",
    'echo "a"',
    'echo a\\ b',
    'echo a\nid',
    'echo a | cat',
    'echo a |cat',
    'echo a| cat',
    'echo a || id',
    'ls x # a note',
  ])('%s: shell syntax', async (c) => {
    await expectRefused('all', c, 'shell syntax');
  });

  it('a refused redirection does nothing', async () => {
    await expectRefused('all', `ls > ${scratch}/made`, 'shell syntax');
    await expect(stat(join(scratch, 'made'))).rejects.toThrow();
  });

  it('a session that asks for no command is refused', async () => {
    await expectRefused('all', undefined, 'no command');
  });

  it("refuses every command of the SSH transport (`exec timeout … bash -c '…'`), logs it, and the transport says it is an automation node", async () => {
    const t = transport('all');
    let refused: unknown;
    const lines = await logged(async () => {
      refused = await t.exec('squeue -h -o %i').catch((e: unknown) => e);
    });
    expect(refused).toMatchObject({
      name: 'UserError',
      message: expect.stringMatching(/runs a forced command \(allowed_commands\.sh\) .*it is an automation node/),
    });
    const mine = lines.filter((l) => l.command.startsWith('exec timeout -s KILL '));
    expect(mine.map((l) => [l.verdict, l.reason, l.command.endsWith(` bash -c 'squeue -h -o %i'`)])).toEqual([
      ['refused', 'not on the list', true],
    ]);
  });
});

describe.concurrent('the policies', () => {
  it('slurm: the always-allowed list and the Slurm commands, nothing of transfer', async () => {
    expect((await ssh(node!, 'slurm', 'echo ok')).stdout).toBe('ok\n');
    const v = await ssh(node!, 'slurm', 'squeue --version');
    expect(v.code).toBe(0);
    expect(v.stdout).toMatch(/^slurm/);
    await expectRefused('slurm', 'rsync --version', 'not on the list');
    await expectRefused('slurm', 'scp -t /tmp', 'not on the list');
    await expectRefused('slurm', SFTP_SERVER, 'not on the list');
  });

  it('transfer: the always-allowed list and rsync, scp, SFTP, nothing of Slurm', async () => {
    expect((await ssh(node!, 'transfer', 'rsync --version')).code).toBe(0);
    await expectRefused('transfer', 'squeue --version', 'not on the list');
    await expectRefused('transfer', 'sbatch --version', 'not on the list');
  });

  it('internal-sftp (as sshd names the in-process server) runs the real sftp-server, but not for slurm', async () => {
    const lines = await logged(async () => {
      // SSH_FXP_VERSION, with the server's extensions.
      expect(await sftpHello('all', 'internal-sftp')).toContain('posix-rename@openssh.com');
    });
    expect(lines.filter((l) => l.command === 'internal-sftp').map((l) => [l.verdict, l.policy])).toEqual([
      ['run', 'all'],
    ]);
    await expectRefused('slurm', 'internal-sftp', 'not on the list');
    // No SFTP server answers: the refusal's text is all that comes back.
    expect(await sftpHello('slurm', 'internal-sftp')).not.toContain('posix-rename@openssh.com');
  });
});

describe('files: SFTP with the all and transfer keys, none with slurm', () => {
  it('the sftp subsystem reaches the gate as the server path, and works', async () => {
    const lines = await logged(async () => {
      const r = await sftp(
        node!,
        'all',
        `put ${scratch}/up.txt ${scratch}/remote.txt\nget ${scratch}/remote.txt ${scratch}/back.txt\nls ${scratch}\n`,
      );
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(`${scratch}/remote.txt`);
    });
    expect(await readFile(join(scratch, 'back.txt'), 'utf8')).toBe('uploaded\n');
    expect(lines.map((l) => [l.verdict, l.policy, l.command])).toEqual([['run', 'all', SFTP_SERVER]]);
    expect((await sftp(node!, 'transfer', `ls ${scratch}\n`)).code).toBe(0);
  });

  it("the SSH transport's file operations with the slurm key: a UserError saying the login allows no file transfer", async () => {
    const t = transport('slurm');
    await expect(t.writeFile(join(scratch, 'never.txt'), 'x')).rejects.toThrow(
      expect.objectContaining({
        name: 'UserError',
        message: expect.stringMatching(/opened no SFTP session .*allows no file transfer/),
      }),
    );
  });

  it('sftp with the slurm key is refused and logged', async () => {
    const lines = await logged(async () => {
      const r = await sftp(node!, 'slurm', `ls ${scratch}\n`);
      expect(r.code).not.toBe(0);
    });
    expect(lines.map((l) => [l.verdict, l.policy, l.command])).toEqual([['refused', 'slurm', SFTP_SERVER]]);
  });

  it('scp, both over SFTP and in its old protocol, and rsync work with the transfer key', async () => {
    const port = String(node!.port);
    const to = `${node!.user}@127.0.0.1:${scratch}`;
    const opts = opensshOptions(node!, 'transfer');
    const lines = await logged(async () => {
      expect((await runProgram('scp', [...opts, '-P', port, join(scratch, 'up.txt'), `${to}/scp.txt`])).code).toBe(0);
      expect(
        (await runProgram('scp', [...opts, '-O', '-P', port, join(scratch, 'up.txt'), `${to}/old.txt`])).code,
      ).toBe(0);
      const rsh = ['ssh', ...opts, '-p', port].join(' ');
      const r = await runProgram('rsync', ['-e', rsh, join(scratch, 'up.txt'), `${to}/rsync.txt`]);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
    });
    for (const f of ['scp.txt', 'old.txt', 'rsync.txt'])
      expect(await readFile(join(scratch, f), 'utf8')).toBe('uploaded\n');
    expect(lines.map((l) => l.verdict)).toEqual(['run', 'run', 'run']);
    expect(lines[0]!.command).toBe(SFTP_SERVER);
    expect(lines[1]!.command).toMatch(/^scp .*-t /);
    expect(lines[2]!.command).toMatch(/^rsync --server /);
  });

  it("SshTransport's file operations work over the gate's SFTP, and fail with the slurm key", async () => {
    const all = transport('all');
    await all.writeFile(join(scratch, 'transport.txt'), 'via ssh2\n');
    expect(await all.readFile(join(scratch, 'transport.txt'))).toBe('via ssh2\n');
    await expect(transport('slurm').writeFile(join(scratch, 'refused.txt'), 'x')).rejects.toThrow();
    expect(await readdir(scratch)).not.toContain('refused.txt');
  });
});

describe.concurrent("the keys' restrict, and from=", () => {
  it('stops port forwarding: stdio (-W) and remote (-R)', async () => {
    const w = await ssh(node!, 'all', undefined, { args: ['-W', `127.0.0.1:${node!.port}`], shared: false });
    expect(w.code).toBe(255);
    expect(w.stderr).toMatch(/administratively prohibited|stdio forwarding failed/);
    const r = await ssh(node!, 'all', 'echo hi', {
      args: ['-o', 'ExitOnForwardFailure=yes', '-R', '0:127.0.0.1:9'],
      shared: false,
    });
    expect(r.code).toBe(255);
    expect(r.stderr).toMatch(/remote port forwarding failed/);
  });

  it('from="127.0.0.1": the key is refused from any other address', async () => {
    // All of 127/8 is this machine: a client bound to 127.0.0.2 comes from elsewhere for sshd.
    const r = await ssh(node!, 'all', 'echo from-elsewhere', { args: ['-b', '127.0.0.2'], shared: false });
    expect(r.code).toBe(255);
    expect(r.stderr).toContain('Permission denied (publickey)');
  });

  it('gives no PTY: a client that insists on one gives up', async () => {
    const command = `echo pty-${Date.now()}`;
    const mark = await gateLogMark(node!);
    const r = await ssh(node!, 'all', command, { args: ['-tt'], shared: false });
    expect(r.code).toBe(255);
    expect(r.stderr).toContain('PTY allocation request failed');
    // sshd had the command before the client gave up, and runs it: wait for its log line, so
    // that it lands in no later test's.
    await vi.waitFor(async () => expect((await gateLog(node!, mark)).map((l) => l.command)).toContain(command), {
      timeout: 10_000,
    });
  });
});

describe('Slurm through the gate', () => {
  const cluster = clusterIsUp('automation node: Slurm through the gate');
  const jobs: string[] = [];

  beforeEach((ctx) => {
    if (!cluster) ctx.skip();
  });

  afterAll(async () => {
    if (node && jobs.length > 0) await ssh(node, 'slurm', `scancel ${jobs.join(' ')}`);
  });

  it('sbatch a script uploaded by SFTP, or sent on stdin with the Slurm list alone; squeue, scontrol, scancel', async () => {
    const name = `automation-gate-${Date.now().toString(36)}`;
    const script = '#!/bin/bash\nsleep 60\n';
    await writeFile(join(scratch, 'job.sh'), script);
    const lines = await logged(async () => {
      expect((await sftp(node!, 'all', `put ${scratch}/job.sh ${scratch}/remote-job.sh\n`)).code).toBe(0);
      const args = `-t 1 --mem 50M -o /dev/null`;
      const first = await ssh(node!, 'all', `sbatch --parsable -J ${name}-a ${args} ${scratch}/remote-job.sh`);
      expect(first.stderr).toBe('');
      expect(first.stdout).toMatch(/^\d+\n$/);
      jobs.push(first.stdout.trim());
      const second = await ssh(node!, 'slurm', `sbatch --parsable -J ${name}-b ${args}`, { stdin: script });
      expect(second.stdout).toMatch(/^\d+\n$/);
      jobs.push(second.stdout.trim());

      const q = await ssh(node!, 'all', `squeue -h -t all -j ${jobs.join(',')} -o %i|%j`);
      expect(q.code).toBe(0);
      expect(q.stdout.trim().split('\n').sort()).toEqual([`${jobs[0]}|${name}-a`, `${jobs[1]}|${name}-b`].sort());
      expect((await ssh(node!, 'slurm', `scontrol show job ${jobs[1]}`)).stdout).toContain(`JobName=${name}-b`);
      expect((await ssh(node!, 'slurm', `scancel ${jobs.join(' ')}`)).code).toBe(0);
    });
    expect(lines.filter((l) => l.verdict === 'refused')).toEqual([]);
    expect(lines).toHaveLength(6);
  });
});

describe('up and down', () => {
  it('up is idempotent (same daemon), --check tells up from down', async () => {
    const pid = await readFile(join(DIR, 'sshd.pid'), 'utf8');
    expect(await automationNodeUp(DIR, PORT)).toEqual(node);
    expect(await readFile(join(DIR, 'sshd.pid'), 'utf8')).toBe(pid);
    expect(await automationNodeIsUp(DIR, PORT)).toBe(true);
    await automationNodeDown(DIR);
    expect(await automationNodeIsUp(DIR, PORT)).toBe(false);
    // The gate itself refuses a policy it does not know.
    const r = await runProgram('bash', [join(SCRIPTS, 'gate'), 'other', join(scratch, 'log')]);
    expect(r.code).toBe(2);
  });
});
