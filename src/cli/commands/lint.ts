/** `campaign lint FILE|DIR...`: the findings of each manifest, and of the .yml files of each folder. */
import { lintManifests, manifestFiles } from '../../app/lint-files.js';
import { formatFinding } from '../../lint/lint.js';
import { EXIT, flag, format, TEXT_OR_JSON, type Command, type Given } from '../command.js';

export const command: Command = {
  synopsis: 'lint FILE|DIR...',
  help: `check manifests (and the .yml files of each directory): file:line:col: severity rule: message
--format text|json   --strict (warnings fail too)`,
  options: { ...TEXT_OR_JSON, strict: flag },
  examples: ['campaign lint campaigns/', 'campaign lint campaigns/sweep.yml --strict --format json'],
  run: lint,
};

async function lint({ values, files }: Given): Promise<number> {
  const fmt = format(values.format);
  const all = await lintManifests(await manifestFiles(files, 'lint'), true);
  if (fmt === 'json') process.stdout.write(JSON.stringify(all, null, 2) + '\n');
  else for (const f of all) process.stdout.write(formatFinding(f) + '\n');
  const failing = all.some((f) => f.severity === 'error' || (values.strict === true && f.severity === 'warning'));
  return failing ? EXIT.incomplete : EXIT.ok;
}
