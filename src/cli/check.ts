/** `campaign check FILE`: the pre-flight, printed as a list, with what blocks which phase. */
import { preflightCampaign } from '../app/executors.js';
import type { Campaign } from '../app/load.js';
import { renderPreflight } from '../app/preflight.js';
import { sshSecretsFrom } from '../app/transport-for.js';

/** Runs the pre-flight and prints it; true when nothing blocks. */
export async function checkCampaign(c: Campaign, warn: (m: string) => void): Promise<boolean> {
  const items = await preflightCampaign(c, {
    ssh: sshSecretsFrom(process.env),
    since: () => new Date().toISOString(),
    warn,
  });
  process.stdout.write(renderPreflight(items, c.plan.phases));
  return !items.some((i) => i.status === 'fail');
}
