/** Campaigns that claim the same outputs, as `lint` over several manifests and `check` tell them. */
import { dirname, resolve } from 'node:path';
import { lintText } from '../lint/lint.js';
import { campaignOutputs, sharedOutputFindings, type CampaignOutputs } from '../lint/shared-outputs.js';
import { manifestFiles } from './lint-files.js';
import { readManifest } from './load.js';
import type { PreflightItem } from './preflight.js';

/**
 * `check`'s view: this campaign against the other manifests beside it, as failed items. Files
 * there that are not sound manifests are no campaign that could run, and are passed over.
 */
export async function sharedOutputItems(file: string): Promise<PreflightItem[]> {
  const campaigns: CampaignOutputs[] = [];
  for (const each of await manifestFiles([dirname(file)], 'check')) {
    const text =
      resolve(each) === resolve(file) ? await readManifest(each) : await readManifest(each).catch(() => undefined);
    const result = text === undefined ? undefined : lintText(each, text);
    if (result?.context) campaigns.push(campaignOutputs(each, result.context));
  }
  return sharedOutputFindings(campaigns)
    .filter((f) => resolve(f.position.file) === resolve(file))
    .map((f) => ({ check: 'outputs', status: 'fail', detail: f.message, ...(f.fix ? { fix: f.fix } : {}) }));
}
