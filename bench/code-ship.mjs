// Shipping a code snapshot (exec/code-ship.js) of FILES files and MB megabytes (5,000 and 50) to
// the test login node over SSH: over its shell (one check, then one command with the tar stream
// on its stdin), again once it is there (the check alone), and by SFTP alone as through an
// automation node. For each it prints the SSH commands sent and the seconds taken. Run with
// `bench/code-ship` (it starts sshd and builds first).
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lintWithRepository } from '../lib/app/code.js';
import { shipOverSftp, shipOverShell } from '../lib/exec/code-ship.js';
import { SshTransport } from '../lib/exec/transport/ssh.js';
import { shellLogin } from './test-servers.mjs';

const FILES = Number(process.env.FILES ?? 5_000);
const MB = Number(process.env.MB ?? 50);
const root = mkdtempSync(join(tmpdir(), 'bench-code-'));
const repo = join(root, 'repo');
const size = Math.floor((MB * 2 ** 20) / FILES);
for (let i = 0; i < FILES; i++) {
  const dir = join(repo, 'src', `m${Math.floor(i / 100)}`);
  mkdirSync(dir, { recursive: true });
  // Content that differs per file (a snapshot of copies would pack to nothing).
  writeFileSync(join(dir, `f${i}.py`), `# ${i}\n`.padEnd(size, `x${i % 97}`));
}
const manifest = `campaign: bench-code
cluster: { executor: local }
workdir: ${join(root, 'work')}
code: { paths: [src/] }
defaults: { walltime: 1m }
phases:
  - name: run
    command: python src/m0/f0.py
`;
writeFileSync(join(repo, 'bench.yml'), manifest);
const git = (...args) => execFileSync('git', ['-c', 'user.name=b', '-c', 'user.email=b@e', ...args], { cwd: repo });
git('init', '-q');
git('add', '-A');
git('commit', '-qm', 'bench');

let started = performance.now();
const { code } = await lintWithRepository(join(repo, 'bench.yml'), manifest);
console.log(
  `snapshot of ${code.files.length} files, ${(code.bytes / 2 ** 20).toFixed(1)} MiB read and hashed in ${((performance.now() - started) / 1000).toFixed(2)} s`,
);

const rows = [];
const measure = async (what, workdir, ship) => {
  const transport = new SshTransport({
    target: shellLogin.target,
    hostKeyFingerprint: shellLogin.fingerprint,
    keyFile: shellLogin.keyFile,
  });
  try {
    started = performance.now();
    await ship(transport, workdir, code);
    rows.push([what, transport.commandsSent, ((performance.now() - started) / 1000).toFixed(2)]);
  } finally {
    await transport.close();
  }
};
const shell = join(root, 'over-shell');
await measure('over the shell, first time', shell, shipOverShell);
await measure('over the shell, already there', shell, shipOverShell);
const sftp = join(root, 'over-sftp');
mkdirSync(join(sftp, '.campaign', 'code'), { recursive: true });
await measure('by SFTP alone, first time', sftp, shipOverSftp);
await measure('by SFTP alone, already there', sftp, shipOverSftp);

console.log('\nwhat                              SSH commands   seconds');
for (const [what, commands, seconds] of rows)
  console.log(`${what.padEnd(34)}${String(commands).padStart(12)}   ${seconds}`);
execFileSync('chmod', ['-R', 'u+w', root]);
rmSync(root, { recursive: true, force: true });
