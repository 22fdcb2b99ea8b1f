/** `campaign check FILE`: the pre-flight, printed as a list, with what blocks which phase. */
import { preflightCampaign } from '../app/executors.js';
import type { Campaign } from '../app/load.js';
import { renderPreflight } from '../app/preflight.js';
import { sshSecretsFrom } from '../app/transport-for.js';

/**
 * Runs the pre-flight and prints it: as a list, or as one JSON object (the campaign, whether
 * nothing blocks, and each item with its status, what it found, its fix and the phases it
 * blocks); true when nothing blocks.
 */
export async function checkCampaign(c: Campaign, warn: (m: string) => void, format: 'text' | 'json'): Promise<boolean> {
  const items = await preflightCampaign(c, {
    ssh: sshSecretsFrom(process.env),
    since: () => new Date().toISOString(),
    warn,
  });
  const passed = !items.some((i) => i.status === 'fail');
  process.stdout.write(
    format === 'json'
      ? JSON.stringify({ campaign: c.manifest.campaign, passed, items }, null, 2) + '\n'
      : renderPreflight(items, c.plan.phases),
  );
  return passed;
}
