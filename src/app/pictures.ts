/** Writes the summary's pictures into a directory; returns what the summary links. */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Plan } from '../plan/plan.js';
import type { CampaignState } from '../state/state.js';
import { pictures } from '../report/pictures.js';

export async function writePictures(
  dir: string,
  plan: Plan,
  state: CampaignState,
): Promise<{ file: string; caption: string }[]> {
  await mkdir(dir, { recursive: true });
  const out = [];
  for (const p of pictures(plan, state)) {
    await writeFile(join(dir, p.file), p.svg);
    out.push({ file: p.file, caption: p.caption });
  }
  return out;
}
