/** Reading a manifest from disk for a command: lint first, refuse on errors, resolve its places. */
import { readFile, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { UserError } from '../errors.js';
import type { Finding } from '../lint/rule.js';
import type { Manifest } from '../manifest/schema.js';
import type { Plan, PlanOptions } from '../plan/plan.js';
import type { CodeSnapshot } from '../exec/code-ship.js';
import { lintWithRepository } from './code.js';

export interface Campaign {
  file: string;
  manifest: Manifest;
  plan: Plan;
  warnings: Finding[];
  /** Where the controller keeps state and the event log. */
  stateDir: string;
  /** The snapshot of the code its tasks run, where the manifest declares code (app/code.ts). */
  code?: CodeSnapshot;
}

/**
 * A manifest is a few kilobytes (a grid is written as its axes); past this it is not one, and
 * parsing it would take minutes and gigabytes before saying so.
 */
const MAX_MANIFEST_BYTES = 16 * 2 ** 20;

export async function readManifest(file: string): Promise<string> {
  try {
    const st = await stat(file);
    if (!st.isFile())
      throw new UserError({ message: `${file} is not a file`, fix: 'give the path of a campaign manifest (.yml)' });
    if (st.size > MAX_MANIFEST_BYTES)
      throw new UserError({
        message: `${file} is ${(st.size / 2 ** 20).toFixed(1)} MiB; a manifest is at most ${MAX_MANIFEST_BYTES / 2 ** 20} MiB`,
        fix: 'write each grid as its axes (seed: [1, 2, 3]), not as a list of its cells',
      });
    return await readFile(file, 'utf8');
  } catch (e) {
    if (e instanceof UserError) throw e;
    throw new UserError({
      message: `cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
      fix: 'give the path of a campaign manifest (.yml)',
    });
  }
}

/** `taskDefinitions: false`: its plan's tasks are left without their definitions (plan/plan.ts, defineTasks). */
export async function loadCampaign(file: string, stateDir?: string, options: PlanOptions = {}): Promise<Campaign> {
  const { result, code } = await lintWithRepository(file, await readManifest(file), options);
  const errors = result.findings.filter((f) => f.severity === 'error');
  if (errors.length > 0 || !result.context) {
    throw new UserError(
      errors.map((f) => ({
        message: `${f.rule}: ${f.message}`,
        position: f.position,
        ...(f.fix ? { fix: f.fix } : {}),
      })),
    );
  }
  const manifest = result.context.manifest;
  return {
    file,
    manifest,
    plan: result.context.plan,
    warnings: result.findings.filter((f) => f.severity === 'warning'),
    stateDir: resolve(stateDir ?? join(dirname(file), '.campaign', manifest.campaign)),
    ...(code === undefined ? {} : { code }),
  };
}

/** The workdir on this machine: `~` is the home directory, a relative path is relative to the manifest. */
export function localWorkdir(c: Campaign): string {
  const w = c.manifest.workdir;
  if (w === '~' || w.startsWith('~/')) return join(homedir(), w.slice(1));
  return isAbsolute(w) ? w : resolve(dirname(c.file), w);
}
