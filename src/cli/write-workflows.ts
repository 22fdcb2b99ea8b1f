/**
 * Writing a manifest's GitHub Actions workflows from the command line's flags: `campaign workflow`,
 * and `campaign init --workflow` for its starter.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { loadCampaign } from '../app/load.js';
import { defaultOptions, workflowTarget } from '../app/workflow-file.js';
import { UserError } from '../errors.js';
import { renderWorkflows } from '../workflow/render.js';
import { EXIT, type Given } from './command.js';

/**
 * What `--uses` may name: the action in a repository at a ref (a commit may carry its tag as a
 * comment: `OWNER/REPO@SHA # v1`), or at a path in the workflow's own repository.
 */
const USES = /^(?:\.\/\S*|[A-Za-z0-9][A-Za-z0-9-]*\/[A-Za-z0-9._-]+@[^\s@]+(?:\s+#\s*\S+)?)$/;

/** Writes the workflows of the manifest `files[0]` (or prints them with --stdout), the flags over those they were last written with. */
export async function writeWorkflows({ values, files }: Given): Promise<number> {
  const c = await loadCampaign(files[0]!);
  const target = await workflowTarget(c.file, c.manifest.campaign);
  // Flags over the options the workflow was last written with, over the defaults.
  const was = target.existing?.options ?? (await defaultOptions(c.file));
  const flag = (name: string): string | undefined => values[name] as string | undefined;
  const uses = flag('uses');
  if (uses !== undefined && !USES.test(uses))
    throw new UserError({
      message: `--uses ${uses} is not OWNER/REPO@REF (nor a path in this repository, ./…)`,
      fix: "name the action as a workflow's uses: does, e.g. --uses campaign-tools/campaign@v0",
    });
  const environment = flag('environment') ?? target.existing?.options?.environment;
  const handover = flag('handover') ?? was.handover;
  if (handover !== undefined && handover !== 'dispatch' && handover !== 'none')
    throw new UserError({
      message: `--handover ${handover} is not dispatch or none`,
      fix: 'dispatch: a job whose budget runs out starts the workflow again; none: a schedule or a person does',
    });
  const written = renderWorkflows(c.plan, {
    ...(handover ? { handover } : {}),
    manifest: target.manifest,
    uses: uses ?? was.uses,
    branch: flag('branch') ?? was.branch,
    budget: flag('budget') ?? was.budget,
    runsOn: flag('runs-on') ?? was.runsOn,
    ...(environment ? { environment } : {}),
  });
  // On stdout, one YAML stream: each file a document, its path in a comment above it.
  if (values.stdout === true) {
    process.stdout.write(written.map(({ path, text }) => `# ${path}\n${text}`).join('---\n'));
    return EXIT.ok;
  }
  for (const { path, text } of written) {
    const at = join(target.root, path);
    await mkdir(dirname(at), { recursive: true });
    await writeFile(at, text);
    process.stdout.write(`wrote ${relative(process.cwd(), at) || at}\n`);
  }
  return EXIT.ok;
}
