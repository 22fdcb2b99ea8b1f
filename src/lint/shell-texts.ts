/** The manifest's shell text: what campaign runs through bash, and where each is written. */
import type { Manifest, Phase } from '../manifest/schema.js';
import type { Path } from '../manifest/source.js';

export interface ShellText {
  text: string;
  path: Path;
  /** The phase whose tasks run it; none for the campaign's own setup and capability gate. */
  phase?: Phase;
}

export function shellTexts(manifest: Manifest): ShellText[] {
  const texts: ShellText[] = [];
  const add = (text: string | undefined, path: Path, phase?: Phase): void => {
    if (text !== undefined) texts.push({ text, path, ...(phase ? { phase } : {}) });
  };
  add(manifest.setup, ['setup']);
  add(manifest.gates?.capability, ['gates', 'capability']);
  manifest.phases.forEach((phase, i) => {
    add(phase.setup, ['phases', i, 'setup'], phase);
    add(phase.command, ['phases', i, 'command'], phase);
    phase.smoke?.trigger?.forEach((check, j) => {
      if (check.check === 'command') add(check.run, ['phases', i, 'smoke', 'trigger', j, 'run'], phase);
    });
  });
  return texts;
}
