/**
 * A campaign's generation: what `run --fresh` starts anew. It is recorded where every controller
 * finds it, in the campaign's directory of its executor in the workdir (beside its attempts, job
 * tables and markers), never in one controller's state alone: two controllers with separate
 * states (a laptop and CI on one manifest) follow the same generation, so each finds the other's
 * submissions, and a `--fresh` by one moves both to the new one (DESIGN rule 8). A state keeps
 * the generation it follows, to tell when another controller has moved on.
 */
import { UserError } from '../errors.js';
import type { ExecutorKind } from '../plan/executor-kinds.js';

/** The file recording the generation, relative to the workdir: moved aside with the attempts by `--fresh`. */
export function generationPath(executor: ExecutorKind, campaign: string): string {
  return `.campaign/${executor}/${campaign}/generation`;
}

/** The file's text for a generation: the time it began (an ISO date-time), on a line. */
export function renderGeneration(generation: string): string {
  return `${generation}\n`;
}

/** The generation a file records (its first line); undefined for no file, or an empty one. */
export function parseGeneration(text: string | undefined): string | undefined {
  const line = text?.split('\n', 1)[0]?.trim();
  return line ? line : undefined;
}

/**
 * What a controller does with the generation recorded in the workdir (`recorded`), its state
 * following `followed` (undefined: a new state, or one from before generations were recorded)
 * or begun at `created`:
 * - `record`: none is recorded; its own is written where none is (the first writer's stands);
 * - `follow`: it follows the recorded one (a state that followed none adopts it);
 * - `stale`: another controller started the campaign afresh: its state is of the old generation.
 */
export type GenerationStep =
  { do: 'record'; generation: string } | { do: 'follow'; generation: string } | { do: 'stale'; recorded: string };

export function generationStep(
  followed: string | undefined,
  created: string,
  recorded: string | undefined,
): GenerationStep {
  // A state from before generations were recorded has its jobs keyed by its creation: that is
  // its generation, so that a later run finds them by name.
  if (recorded === undefined) return { do: 'record', generation: followed ?? created };
  if (followed === undefined || followed === recorded) return { do: 'follow', generation: recorded };
  return { do: 'stale', recorded };
}

/** Said when another controller started the campaign afresh; the stale state was moved to `movedTo`. */
export function staleGenerationError(recorded: string, movedTo: string): UserError {
  return new UserError({
    message: `the campaign was started afresh by another controller at ${recorded}; the state here was of the old generation and is now in ${movedTo}, and nothing of it was sent again`,
    fix: 'run again without --fresh to follow the new generation (its tasks are found where they run, never sent twice)',
  });
}
