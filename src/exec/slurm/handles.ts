/**
 * Where an attempt of the Slurm executor is, in Slurm's terms and on the cluster's disk: its
 * array task's handle and array job, the key its markers are filed under, and the submission
 * whose directory holds its log. Pure: the observation, the withdrawal and the verification
 * all find an attempt this way, so they cannot disagree on it.
 */
import type { ActiveAttempt } from '../executor.js';

/** Whether `path` is a job log of the campaign whose job directories are under `root`. */
export function isJobLog(root: string, path: string): boolean {
  return path.startsWith(`${root}/`) && /^[0-9a-f]{12}\/logs\/\d+\.log$/.test(path.slice(root.length + 1));
}

/** The attempt's `<array job id>_<index>`, where it has one (a handle of this executor's). */
export function arrayHandle(a: ActiveAttempt): string | undefined {
  const h = a.attempt.handle;
  return h !== undefined && /^\d+_\d+$/.test(h) ? h : undefined;
}

/** The array job the attempt went to, where its handle is one of this executor's. */
export function arrayJob(a: ActiveAttempt): string | undefined {
  return arrayHandle(a)?.split('_')[0];
}

/**
 * Where the attempt's markers are filed (markers.ts: `<job>_<index>`): its own row's for a
 * packed task, whose index in the table is not its element's.
 */
export function markerKey(a: ActiveAttempt, packed: boolean): string | undefined {
  const handle = a.attempt.handle;
  if (handle === undefined || !packed) return handle;
  const row = /\/logs\/(\d+)\.log$/.exec(a.attempt.log ?? '')?.[1];
  return row === undefined ? handle : `${handle.split('_')[0]}_${row}`;
}

/** The submissions (their keys) of these attempts, from where this executor put their logs under `root`. */
export function submissionsOf(root: string, active: readonly ActiveAttempt[]): string[] {
  const keys = new Set(
    active.flatMap(({ attempt }) =>
      attempt.log && isJobLog(root, attempt.log) ? [attempt.log.slice(root.length + 1).split('/')[0]!] : [],
    ),
  );
  return [...keys];
}
