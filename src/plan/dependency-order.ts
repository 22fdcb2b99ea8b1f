/**
 * The one dependency order of a campaign's phases: the plan plans and defines its phases in it
 * (a phase's definition holds those of the phases whose outputs it reads), and each pass decides
 * them in it (a phase is judged after those it waits on). One function serves both, so that the
 * two orders never drift apart.
 */

/**
 * `phases` with each one's dependencies before it, in their given order where there is a choice
 * (a cycle, which lint refuses, is cut). `dependsOnOf` names the phases one depends on: the
 * manifest's phases and the plan's say so differently.
 */
export function dependenciesFirst<P extends { readonly name: string }>(
  phases: readonly P[],
  dependsOnOf: (phase: P) => readonly string[],
): P[] {
  const byName = new Map(phases.map((p) => [p.name, p]));
  const done = new Set<string>();
  const order: P[] = [];
  const visit = (p: P, path: Set<string>): void => {
    if (done.has(p.name) || path.has(p.name)) return;
    path.add(p.name);
    for (const d of dependsOnOf(p)) {
      const dep = byName.get(d);
      if (dep) visit(dep, path);
    }
    done.add(p.name);
    order.push(p);
  };
  for (const p of phases) visit(p, new Set());
  return order;
}
