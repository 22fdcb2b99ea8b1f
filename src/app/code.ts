/**
 * The code a campaign's tasks run, read from the manifest's git repository (DESIGN rule 11): its
 * tracked files under the declared `code.paths`, as the working tree holds them, hashed into one
 * snapshot (plan/code.ts) that the executor ships before the first task that runs it.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { lstat, readFile, readlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { UserError, type Problem } from '../errors.js';
import { lintText, type LintResult } from '../lint/lint.js';
import type { RepositoryFacts } from '../lint/rule.js';
import { parseManifest, type LoadedManifest } from '../manifest/load.js';
import { parseSize } from '../manifest/units.js';
import { codeEntry, snapshotId, underPaths, type CodeFiles, type CodeMode } from '../plan/code.js';
import type { PlanOptions } from '../plan/plan.js';
import { RULES } from '../lint/rules/index.js';
import type { CodeFile, CodeSnapshot } from '../exec/code-ship.js';

/** The largest snapshot shipped unless the manifest says otherwise. */
export const DEFAULT_CODE_MAX_BYTES = 100 * 2 ** 20;

const git = (cwd: string, args: string[]): Promise<{ ok: boolean; stdout: string }> =>
  new Promise((resolve) => {
    execFile('git', args, { cwd, timeout: 60_000, maxBuffer: 256 * 2 ** 20 }, (error, stdout) =>
      resolve({ ok: !error, stdout }),
    );
  });

interface Repository {
  root: string;
  tracked: Set<string>;
}

/** Every tracked file and every folder above one, so that a declared path is looked up once. */
function trackedPlaces(tracked: ReadonlySet<string>): Set<string> {
  const places = new Set<string>();
  for (const file of tracked) {
    places.add(file);
    for (let slash = file.indexOf('/'); slash !== -1; slash = file.indexOf('/', slash + 1))
      places.add(file.slice(0, slash));
  }
  return places;
}

/** The git repository holding `file`, with its tracked files; undefined outside one, or without git. */
async function repositoryOf(file: string): Promise<Repository | undefined> {
  const cwd = dirname(file);
  const top = await git(cwd, ['rev-parse', '--show-toplevel']);
  if (!top.ok) return undefined;
  const root = top.stdout.trim();
  const listed = await git(root, ['ls-files', '-z', '--cached']);
  if (!listed.ok) return undefined;
  return { root, tracked: new Set(listed.stdout.split('\0').filter(Boolean)) };
}

/** The manifest's code paths at every place it names them, with their positions. */
function declaredPaths(loaded: LoadedManifest): { path: string; where: (string | number)[] }[] {
  const { manifest } = loaded;
  const out = (manifest.code?.paths ?? []).map((path, i) => ({ path, where: ['code', 'paths', i] }));
  manifest.phases.forEach((phase, p) =>
    (phase.code?.paths ?? []).forEach((path, i) => out.push({ path, where: ['phases', p, 'code', 'paths', i] })),
  );
  return out;
}

/** The snapshot of the manifest's declared code, read from the working tree. */
async function takeSnapshot(loaded: LoadedManifest, repo: Repository): Promise<CodeSnapshot> {
  const { manifest, source } = loaded;
  const paths = manifest.code!.paths;
  const problems: Problem[] = [];
  const places = trackedPlaces(repo.tracked);
  for (const { path, where } of declaredPaths(loaded)) {
    if (!places.has(path.replace(/\/+$/, '')))
      problems.push({
        message: `code path ${path} matches no file the repository tracks`,
        position: source.at(where),
        fix: `give a file or folder relative to the repository's root (${repo.root}), and commit it or \`git add\` it`,
      });
    else if (where[0] === 'phases' && !underPaths(path, paths) && !paths.some((p) => underPaths(p, [path])))
      problems.push({
        message: `phase code path ${path} is not among the campaign's code.paths, so no snapshot holds it`,
        position: source.at(where),
        fix: `add it (or a folder holding it) to code.paths at the top of the manifest`,
      });
  }
  if (problems.length > 0) throw new UserError(problems);
  const files: CodeFile[] = [];
  const entries: CodeFiles = {};
  let bytes = 0;
  for (const path of [...repo.tracked].filter((f) => underPaths(f, paths)).sort()) {
    const at = join(repo.root, path);
    // lstat: a link is shipped as a link, never followed out of the repository.
    const st = await lstat(at).catch(() => undefined);
    if (st === undefined || st.isDirectory()) continue; // deleted in the working tree, or a submodule
    const mode: CodeMode = st.isSymbolicLink() ? 'link' : (st.mode & 0o111) !== 0 ? 'exec' : 'file';
    const data = mode === 'link' ? Buffer.from(await readlink(at)) : await readFile(at);
    bytes += data.length;
    files.push({ path, mode, data });
    entries[path] = codeEntry(mode, createHash('sha256').update(data).digest('hex'));
  }
  const max = manifest.code!.max_size === undefined ? DEFAULT_CODE_MAX_BYTES : parseSize(manifest.code!.max_size)!;
  if (bytes > max) {
    const largest = [...files].sort((a, b) => b.data.length - a.data.length).slice(0, 5);
    throw new UserError({
      message: `the code snapshot is ${mib(bytes)}, more than ${mib(max)}; its largest files: ${largest.map((f) => `${f.path} (${mib(f.data.length)})`).join(', ')}`,
      position: source.at(['code', 'paths']),
      fix: 'data belongs in inputs, not code: move it out of code.paths (or raise code.max_size)',
    });
  }
  const head = await git(repo.root, ['rev-parse', '--verify', '-q', 'HEAD']);
  const commit = head.ok ? head.stdout.trim() : null;
  const diff =
    commit === null ? undefined : await git(repo.root, ['diff', '--name-only', '-z', 'HEAD', '--', ...paths]);
  const dirty = commit === null ? files.map((f) => f.path) : (diff?.stdout.split('\0').filter(Boolean) ?? []).sort();
  return { facts: { id: snapshotId(entries), commit, dirty, files: entries }, files, bytes };
}

const mib = (n: number): string => `${(n / 2 ** 20).toFixed(1)} MiB`;

/** A manifest's lint with what its repository holds; the snapshot of its code where it declares some. */
export async function lintWithRepository(
  file: string,
  text: string,
  options: PlanOptions = {},
): Promise<{ result: LintResult; code?: CodeSnapshot }> {
  let loaded: LoadedManifest | undefined;
  try {
    loaded = parseManifest(file, text);
  } catch (e) {
    if (!(e instanceof UserError)) throw e;
  }
  // An unparsed manifest: lint says why, with nothing of the repository.
  if (loaded === undefined) return { result: lintText(file, text, RULES, undefined, options) };
  const repo = await repositoryOf(file);
  if (loaded.manifest.code !== undefined && repo === undefined)
    throw new UserError({
      message: `${file} declares code, and it is not in a git repository (or git is missing)`,
      position: loaded.source.at(['code'], { key: true }),
      fix: 'keep the manifest in the repository of the code it runs (git init, git add), or remove code',
    });
  const code = repo !== undefined && loaded.manifest.code !== undefined ? await takeSnapshot(loaded, repo) : undefined;
  const facts: RepositoryFacts | undefined =
    repo === undefined ? undefined : { tracked: repo.tracked, ...(code ? { code: code.facts } : {}) };
  // The manifest parsed above, not parsed again.
  return { result: lintText(file, text, RULES, facts, { ...options, parsed: loaded }), ...(code ? { code } : {}) };
}
