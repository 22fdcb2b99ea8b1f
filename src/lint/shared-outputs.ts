/**
 * Campaigns that would write the same files: two manifests whose tasks' outputs land on the same
 * path of the same machine. The second to run has its smoke stage refused by the output gate
 * (each output is one campaign's), so this is told before either runs, naming both.
 */
import { posix } from 'node:path';
import type { Position } from '../errors.js';
import { loginsOf, type Manifest } from '../manifest/schema.js';
import type { Plan } from '../plan/plan.js';
import type { Finding, LintContext } from './rule.js';

export interface CampaignOutputs {
  /** The manifest's path, as given (the directory a relative local workdir is resolved from). */
  file: string;
  manifest: Manifest;
  plan: Plan;
  /** Where each phase's `output` is written in the file, by the phase's index. */
  outputAt(phase: number): Position;
}

/** The machines a campaign's outputs are written on: its logins, or this machine. */
function placesOf(manifest: Manifest): string[] {
  const logins = loginsOf(manifest.cluster);
  return logins.length === 0 ? [THIS_MACHINE] : logins;
}

const THIS_MACHINE = 'this machine';

/** The workdir as a path to compare: relative to the manifest on this machine, to the login's home elsewhere. */
function workdirOn(place: string, outputs: CampaignOutputs): string {
  const workdir = outputs.manifest.workdir;
  if (place !== THIS_MACHINE) return posix.normalize(workdir.replace(/^~(\/|$)/, '') || '.');
  if (workdir.startsWith('/') || workdir === '~' || workdir.startsWith('~/')) return posix.normalize(workdir);
  return posix.join(posix.dirname(outputs.file), workdir);
}

/** A finding on each of two campaigns for every pair that shares an output path, naming the other. */
export function sharedOutputFindings(campaigns: readonly CampaignOutputs[]): Finding[] {
  // The first claim of each path: which campaign, and in which phase.
  const claimed = new Map<string, { campaign: number; phase: number }>();
  const pairs = new Map<string, { first: [number, number]; second: [number, number]; path: string; count: number }>();
  campaigns.forEach((outputs, index) => {
    for (const place of placesOf(outputs.manifest)) {
      const workdir = workdirOn(place, outputs);
      outputs.plan.phases.forEach((phase, phaseIndex) => {
        for (const task of [...phase.smoke, ...phase.tasks]) {
          if (task.output === undefined) continue;
          const path = posix.join(workdir, task.output);
          const key = `${place}\0${path}`;
          const owner = claimed.get(key);
          if (owner === undefined) {
            claimed.set(key, { campaign: index, phase: phaseIndex });
            continue;
          }
          if (owner.campaign === index) continue;
          const pair = `${owner.campaign} ${index}`;
          const seen = pairs.get(pair);
          if (seen) seen.count++;
          else
            pairs.set(pair, {
              first: [owner.campaign, owner.phase],
              second: [index, phaseIndex],
              path: place === THIS_MACHINE ? path : `${place}:${path}`,
              count: 1,
            });
        }
      });
    }
  });
  const findings: Finding[] = [];
  const finding = (self: [number, number], other: number, path: string, count: number): Finding => {
    const me = campaigns[self[0]]!;
    const them = campaigns[other]!;
    const sameName =
      me.manifest.campaign === them.manifest.campaign
        ? ' (under one campaign name, so neither is refused: each overwrites the other)'
        : '';
    return {
      rule: 'shared-outputs',
      severity: 'error',
      message: `campaigns ${me.manifest.campaign} and ${them.manifest.campaign} (${them.file}) both write ${path}${count > 1 ? ` and ${count - 1} more path${count > 2 ? 's' : ''}` : ''}${sameName}`,
      position: me.outputAt(self[1]),
      fix: `give each campaign its own workdir (e.g. workdir: runs/${me.manifest.campaign}), or output paths that name it`,
    };
  };
  for (const { first, second, path, count } of pairs.values()) {
    findings.push(finding(first, second[0], path, count), finding(second, first[0], path, count));
  }
  return findings;
}

/** What sharedOutputFindings reads of a manifest that linted clean. */
export function campaignOutputs(file: string, context: LintContext): CampaignOutputs {
  return {
    file,
    manifest: context.manifest,
    plan: context.plan,
    outputAt: (phase) => context.source.at(['phases', phase, 'output']),
  };
}
