import { dependsOn } from '../../manifest/expand.js';
import type { Rule, RuleFinding } from '../rule.js';

/** Strongly connected components (Tarjan), each a list of node indices. */
function components(edges: readonly number[][]): number[][] {
  const index: number[] = new Array<number>(edges.length).fill(-1);
  const low: number[] = new Array<number>(edges.length).fill(0);
  const onStack: boolean[] = new Array<boolean>(edges.length).fill(false);
  const stack: number[] = [];
  const out: number[][] = [];
  let counter = 0;
  const visit = (v: number): void => {
    index[v] = low[v] = counter++;
    stack.push(v);
    onStack[v] = true;
    for (const w of edges[v]!) {
      if (index[w] === -1) {
        visit(w);
        low[v] = Math.min(low[v]!, low[w]!);
      } else if (onStack[w]) low[v] = Math.min(low[v]!, index[w]!);
    }
    if (low[v] === index[v]) {
      const scc: number[] = [];
      let w: number;
      do {
        w = stack.pop()!;
        onStack[w] = false;
        scc.push(w);
      } while (w !== v);
      out.push(scc);
    }
  };
  for (let v = 0; v < edges.length; v++) if (index[v] === -1) visit(v);
  return out;
}

/** The shortest path start -> ... -> start inside `members`, by breadth-first search. */
function cycleThrough(start: number, edges: readonly number[][], members: ReadonlySet<number>): number[] {
  const parent = new Map<number, number>();
  const queue = [start];
  while (queue.length > 0) {
    const v = queue.shift()!;
    for (const w of edges[v]!) {
      if (!members.has(w)) continue;
      if (w === start) {
        const path = [v];
        for (let u = v; u !== start;) {
          u = parent.get(u)!;
          path.push(u);
        }
        return path.reverse();
      }
      if (!parent.has(w)) {
        parent.set(w, v);
        queue.push(w);
      }
    }
  }
  return [start];
}

/** Phases that wait for each other never start: the campaign would hang (DESIGN rule 10). */
export const dependencyCycle: Rule = {
  id: 'dependency-cycle',
  severity: 'error',
  description: 'phases that depend on each other (or on themselves) in a cycle',
  needs: 'manifest',
  check({ manifest, source }) {
    const findings: RuleFinding[] = [];
    const firstIndex = new Map<string, number>();
    manifest.phases.forEach((p, i) => {
      if (!firstIndex.has(p.name)) firstIndex.set(p.name, i);
    });
    // Only the first phase of a name is a node: duplicate names are another rule's error.
    const edges = manifest.phases.map((p, i) =>
      firstIndex.get(p.name) === i ? dependsOn(p).flatMap((d) => (firstIndex.has(d) ? [firstIndex.get(d)!] : [])) : [],
    );
    const cycles = components(edges)
      .filter((scc) => scc.length > 1 || edges[scc[0]!]!.includes(scc[0]!))
      .map((scc) => cycleThrough(Math.min(...scc), edges, new Set(scc)))
      .sort((a, b) => a[0]! - b[0]!);
    for (const cycle of cycles) {
      const i = cycle[0]!;
      const phase = manifest.phases[i]!;
      const next = manifest.phases[cycle[1] ?? i]!.name;
      const names = [...cycle, i].map((k) => manifest.phases[k]!.name);
      const j = dependsOn(phase).indexOf(next);
      const self = cycle.length === 1;
      findings.push({
        message: self
          ? `phase "${phase.name}" depends on itself (${names.join(' -> ')}): it can never start`
          : `dependency cycle ${names.join(' -> ')}: none of these phases can ever start`,
        position: source.at(
          Array.isArray(phase.depends_on) ? ['phases', i, 'depends_on', j] : ['phases', i, 'depends_on'],
        ),
        fix: self
          ? `remove "${phase.name}" from its own depends_on`
          : `remove one dependency of the cycle, e.g. "${next}" from the depends_on of "${phase.name}"`,
      });
    }
    return findings;
  },
};
