/** `campaign check FILE`: the pre-flight, printed as a list, with what blocks which phase. */
import { preflightCampaign } from '../app/executors.js';
import type { Campaign } from '../app/load.js';
import type { PreflightItem } from '../app/preflight.js';
import { sshSecretsFrom } from '../app/transport-for.js';

const MARKS: Record<PreflightItem['status'], string> = { ok: 'ok  ', warn: 'warn', fail: 'FAIL' };

/** The items as lines: a mark, the check, what it found, and the way out of a failure. */
export function renderPreflight(items: readonly PreflightItem[], phases: readonly string[]): string {
  const width = Math.max(...items.map((i) => i.check.length), 5);
  const lines = items.flatMap((i) => [
    `${MARKS[i.status]}  ${i.check.padEnd(width)}  ${i.detail}${i.status === 'fail' && i.phases ? ` [blocks ${i.phases.join(', ')}]` : ''}`,
    ...(i.fix && i.status !== 'ok' ? [`${' '.repeat(width + 8)}fix: ${i.fix}`] : []),
  ]);
  const failed = items.filter((i) => i.status === 'fail');
  const blocked = new Set(failed.flatMap((i) => i.phases ?? phases));
  lines.push(
    failed.length === 0
      ? `nothing blocks the campaign (${items.length} checks)`
      : `${failed.length} of ${items.length} checks failed; blocked: ${phases.filter((p) => blocked.has(p)).join(', ')}`,
  );
  return lines.join('\n') + '\n';
}

/** Runs the pre-flight and prints it; true when nothing blocks. */
export async function checkCampaign(c: Campaign, warn: (m: string) => void): Promise<boolean> {
  const items = await preflightCampaign(c, {
    ssh: sshSecretsFrom(process.env),
    since: () => new Date().toISOString(),
    warn,
  });
  process.stdout.write(
    renderPreflight(
      items,
      c.manifest.phases.map((p) => p.name),
    ),
  );
  return !items.some((i) => i.status === 'fail');
}
