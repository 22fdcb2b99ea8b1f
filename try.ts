import { readFileSync } from 'node:fs';
import { lintText, formatFinding } from './src/lint/lint.js';
for (const f of process.argv.slice(2)) {
  const r = lintText(f, readFileSync(f, 'utf8'));
  for (const x of r.findings) console.log(formatFinding(x));
  if (r.context) for (const p of r.context.plan.phases) { console.log(p.name, p.tasks.length, p.smoke.map(s=>s.id), p.gpuHours.toFixed(1)); for (const a of p.arrays) console.log('  ', a.id, a.tasks.length, a.budget.arithmetic, a.budget.seconds, a.budget.partition, a.budget.error ?? '') }
}
