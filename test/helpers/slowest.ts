/**
 * Prints the ten slowest tests when a run ends, so that the suite's time is watched where it
 * is spent (the whole run must stay under 15 minutes on CI's two cores).
 */
import { relative } from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';

const SHOWN = 10;

export default class Slowest implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const tests: { ms: number; name: string }[] = [];
    for (const m of modules)
      for (const t of m.children.allTests()) {
        const ms = t.diagnostic()?.duration;
        if (ms !== undefined) tests.push({ ms, name: `${relative(process.cwd(), m.moduleId)} > ${t.fullName}` });
      }
    if (tests.length === 0) return;
    tests.sort((a, b) => b.ms - a.ms);
    const lines = tests.slice(0, SHOWN).map((t) => `  ${(t.ms / 1000).toFixed(1).padStart(7)} s  ${t.name}\n`);
    process.stdout.write(`\nThe ${Math.min(SHOWN, tests.length)} slowest tests:\n${lines.join('')}`);
  }
}
