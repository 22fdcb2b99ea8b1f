/**
 * Where the ssh-gpu executor keeps a campaign's files in the workdir: everything of an attempt
 * in a folder of its own under the campaign's, so that two campaigns never touch each other's
 * tasks. A pool's servers share the workdir, so a path made through one holds on all.
 */
import type { Server } from './server.js';

/** The campaign's folder, relative to the workdir. */
export const campaignFolder = (campaign: string): string => `.campaign/ssh-gpu/${campaign}`;

/** The campaign's folder on the server. */
export async function campaignDir(s: Server, campaign: string): Promise<string> {
  return `${await s.workdir.path()}/${campaignFolder(campaign)}`;
}

/** Where one attempt keeps its scripts, environment, GPUs, pid, exit marker and log. */
export async function attemptDir(s: Server, campaign: string, taskId: string, attempt: number): Promise<string> {
  return `${await campaignDir(s, campaign)}/attempts/${taskId}/${attempt}`;
}

/** The file naming the GPUs of the server's last wave (one per server in a pool: they share the workdir). */
export async function waveFile(s: Server, campaign: string): Promise<string> {
  return `${await campaignDir(s, campaign)}/wave${s.name === undefined ? '' : `-${s.name.replace(/[^A-Za-z0-9._-]/g, '_')}`}`;
}

/**
 * Where a `campaign shell` marks the GPUs it holds, one file per UUID (render/shell-script.ts):
 * in the workdir, beside every campaign's own folder, so that each campaign that runs there
 * reads it; GPU UUIDs are unique, so a pool's servers share it as they share the workdir.
 */
export async function shellHolds(s: Server): Promise<string> {
  return `${await s.workdir.path()}/.campaign/ssh-gpu/shells`;
}
