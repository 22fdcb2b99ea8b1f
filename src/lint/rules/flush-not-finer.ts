import type { Rule, RuleFinding } from '../rule.js';

/** DESIGN rule 5: results survive a kill only when they are flushed more often than once a task. */
export const flushNotFiner: Rule = {
  id: 'flush-not-finer',
  severity: 'warning',
  description: 'a flush unit that is not finer than the task (at_end, or the whole task in one unit)',
  needs: 'manifest',
  check({ manifest, source }) {
    const findings: RuleFinding[] = [];
    manifest.phases.forEach((phase, i) => {
      const flush = phase.flush;
      if (flush === undefined) return;
      const position = source.at(['phases', i, 'flush']);
      const cost = phase.cost;
      if (flush === 'at_end') {
        findings.push({
          message: `phase "${phase.name}" writes its results only at the end: a task killed at its walltime loses everything`,
          position,
          fix: `write results as they come and declare flush: per_${cost?.unit ?? '<unit>'}`,
        });
        return;
      }
      if (!cost) return;
      const unit = flush.slice('per_'.length);
      if (unit === cost.unit) {
        const units = typeof cost.units === 'number' ? [cost.units] : Object.values(cost.units);
        const least = Math.min(...units);
        if (least > 1) return;
        findings.push({
          message: `phase "${phase.name}" flushes per ${unit}, but a task is ${least} ${unit}${least === 1 ? '' : 's'}: nothing is written before the task ends`,
          position,
          fix: `measure the cost in a finer unit (several per task, e.g. cost.unit: step) and flush per that unit`,
        });
        return;
      }
      findings.push({
        message: `phase "${phase.name}" flushes per_${unit}, but only the cost unit ${cost.unit} is known: cannot tell whether per_${unit} is finer than a task`,
        position,
        fix: `write flush: per_${cost.unit} (a task is several ${cost.unit}s), or express the cost in ${unit}s`,
      });
    });
    return findings;
  },
};
