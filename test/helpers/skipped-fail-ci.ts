/**
 * A test of a real server that finds no server is skipped, visibly; under CI=true (CI sets it)
 * a skipped test fails the run, naming each one: the suite there must have brought every
 * server up, and a skip would pass off an untested path as tested.
 */
import type { Reporter, TestModule } from 'vitest/node';

export default class SkippedFailCi implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    if (process.env.CI !== 'true') return;
    const skipped: string[] = [];
    for (const m of modules)
      for (const t of m.children.allTests())
        if (t.result().state === 'skipped') skipped.push(`${m.moduleId}: ${t.fullName}`);
    if (skipped.length === 0) return;
    process.stderr.write(
      `\n*** CI=true and ${skipped.length} test${skipped.length === 1 ? ' was' : 's were'} skipped (a server they need did not start?):\n` +
        skipped.map((s) => `  ${s}\n`).join('') +
        '*** the run fails: bring the servers up (scripts/cluster/up, scripts/sshd/up) or find why they would not start\n',
    );
    process.exitCode = 1;
  }
}
