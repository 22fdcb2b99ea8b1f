// Gathering a phase's results from many small outputs on the test cluster's login node, as
// `campaign results` does (app/gather-results.js over the slurm executor's SSH link): the
// outputs are written on the node in one command, then gathered three times: with nothing kept,
// with nothing changed since, and after ten outputs were rewritten. For each it prints the SSH
// commands sent, the outputs read (their text carried over the link) and the seconds taken.
// OUTPUTS=n changes the count (10,000). Run with `bench/gather` (it starts the cluster and sshd
// and builds first).
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gatherResults } from '../lib/app/gather-results.js';
import { loadCampaign } from '../lib/app/load.js';
import { SlurmExecutor } from '../lib/exec/slurm/slurm-executor.js';
import { keptResultsPath } from '../lib/exec/store/kept-results.js';
import { SshTransport } from '../lib/exec/transport/ssh.js';
import { resultPhase } from '../lib/report/results/collect.js';
import { clusterHead, shellLogin } from './test-servers.mjs';

const OUTPUTS = Number(process.env.OUTPUTS ?? 10_000);
const root = mkdtempSync(join(tmpdir(), 'bench-gather-'));
const workdir = join(root, 'work');
const file = join(root, 'bench.yml');
writeFileSync(
  file,
  `${clusterHead('bench-gather', workdir, 50)}phases:
  - name: train
    grid: { n: [${Array.from({ length: OUTPUTS }, (_, i) => i + 1).join(', ')}] }
    command: |
      printf '{"loss": %s}\\n' "\${n}" > \${output}
    output: out/\${n}/metrics.json
    walltime: 5m
    results: { metrics: [loss] }
`,
);
const c = await loadCampaign(file);
const r = resultPhase(c.manifest, c.plan, undefined);
const paths = new Map(r.plan.tasks.map((t) => [t.id, t.output]));
const transport = new SshTransport({
  target: shellLogin.target,
  hostKeyFingerprint: shellLogin.fingerprint,
  keyFile: shellLogin.keyFile,
});
const executor = new SlurmExecutor({ manifest: c.manifest, transport, since: new Date().toISOString() });

const write = (ns) =>
  transport.exec(
    `mkdir -p ${workdir} && cd ${workdir} && for n in ${ns.join(' ')}; do mkdir -p out/$n && printf '{"loss": %s, "epoch": 3}\\n' "$n.$RANDOM" > out/$n/metrics.json; done`,
    { timeoutMs: 600_000 },
  );
const all = r.plan.tasks.map((t) => t.values.n);
await write(all);

const rows = [];
let read = 0;
// Counts the outputs whose text crossed the link.
const counting = {
  gather: (ps, known, ends, take) =>
    executor.gather(ps, known, ends, (p, f) => {
      if (f.text !== undefined) read++;
      take(p, f);
    }),
};
for (const [label, before] of [
  ['nothing kept', async () => {}],
  ['nothing changed', async () => {}],
  ['10 rewritten', () => write(all.slice(0, 10))],
]) {
  await before();
  read = 0;
  const commands = transport.commandsSent;
  const t0 = performance.now();
  const results = await gatherResults(c, r, counting, paths, (m) => console.error(m));
  const seconds = (performance.now() - t0) / 1000;
  const found = [...results.values()].filter((x) => x && 'records' in x).length;
  rows.push({
    gathering: label,
    commands: transport.commandsSent - commands,
    read,
    results: found,
    seconds: seconds.toFixed(2),
  });
}
await executor.close();
const kept = statSync(keptResultsPath(c.stateDir, 'train')).size;
rmSync(root, { recursive: true, force: true });
console.log(`${OUTPUTS} outputs on the login node, gathered three times over SSH:\n`);
console.log('| gathering | SSH commands | outputs read | results | seconds |');
console.log('| --- | ---: | ---: | ---: | ---: |');
for (const x of rows) console.log(`| ${x.gathering} | ${x.commands} | ${x.read} | ${x.results} | ${x.seconds} |`);
console.log(`\nKept under the state directory: ${kept} bytes.`);
