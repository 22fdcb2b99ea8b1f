import type { Rule, RuleFinding } from '../rule.js';

/**
 * A task's tag names directories (its attempts, and `${tag}` in paths): past a file system's
 * 255 bytes for one name, every attempt would fail to start (ENAMETOOLONG). Bounded below that,
 * for the suffixes campaign adds.
 */
export const MAX_TAG_BYTES = 200;

export const tagTooLong: Rule = {
  id: 'tag-too-long',
  severity: 'error',
  description: 'a task tag too long to be a file name',
  needs: 'tasks',
  check({ manifest, source, tasks }) {
    const findings: RuleFinding[] = [];
    manifest.phases.forEach((phase, i) => {
      // A UTF-16 unit is at most 3 bytes of UTF-8: most tags are counted without encoding them.
      const long = (tasks.get(phase.name) ?? []).filter(
        (t) => t.tag.length * 3 > MAX_TAG_BYTES && Buffer.byteLength(t.tag) > MAX_TAG_BYTES,
      );
      const first = long[0];
      if (!first) return;
      findings.push({
        message: `the tag of cell ${first.cell + 1} of phase "${phase.name}" is ${Buffer.byteLength(first.tag)} bytes (${long.length} tag${long.length === 1 ? '' : 's'} over ${MAX_TAG_BYTES}): a tag names directories, and a file name holds at most 255 bytes`,
        position: source.at(['phases', i, 'grid'], { key: true }),
        fix: 'shorten the long values (e.g. an axis of short names, with the long text looked up by the program)',
      });
    });
    return findings;
  },
};
