/**
 * The campaign's generation as its workdir records it (decide/generation.ts), read and written
 * through one executor's file operations: the same for every executor, so that each keeps it in
 * its own directory of the campaign, which `run --fresh` moves aside with the attempts.
 */
import { UserError } from '../errors.js';
import { parseGeneration, renderGeneration } from '../decide/generation.js';
import { LinkError } from './transport/transport.js';

/** What the record needs of a workdir: workdir-relative paths. */
export interface WorkdirFiles {
  readFile(path: string): Promise<string | undefined>;
  /** Each file replaced whole (by rename); returns the paths it could not write. */
  writeFiles(files: readonly { path: string; text: string }[]): Promise<string[]>;
  /** Writes the file whole where nothing is at the path, atomically; false where something is. */
  createFile(path: string, text: string): Promise<boolean>;
}

/** The campaign's generation as an executor keeps it, for every controller to find. */
export interface CampaignGeneration {
  /** The generation the workdir records; undefined where none is. */
  read(): Promise<string | undefined>;
  /** Records `generation` where none is recorded, returning the one recorded (of two controllers racing, the first writer's). */
  record(generation: string): Promise<string>;
  /** Records a new generation over the one there (`run --fresh`). */
  replace(generation: string): Promise<void>;
}

export class GenerationRecord implements CampaignGeneration {
  /** The generation as this record last read or wrote it: the one a submission is keyed by. */
  last: string | undefined;

  constructor(
    private readonly files: WorkdirFiles,
    private readonly path: string,
  ) {}

  async read(): Promise<string | undefined> {
    const recorded = parseGeneration(await this.files.readFile(this.path));
    if (recorded !== undefined) this.last = recorded;
    return recorded;
  }

  /**
   * Records `generation` where none is, and returns the one recorded: of two controllers racing,
   * the first writer's stands and the other reads it. A workdir where nothing can be written (a
   * file, a directory not writable, a login with neither a shell nor file transfer) records
   * nothing: the generation is the caller's, and the tasks' launches say what is wrong.
   */
  async record(generation: string): Promise<string> {
    try {
      if (!(await this.files.createFile(this.path, renderGeneration(generation))))
        return (await this.read()) ?? generation;
    } catch (e) {
      if (e instanceof LinkError) throw e;
    }
    this.last = generation;
    return generation;
  }

  /** Records a new generation over the one there (`run --fresh`): every controller then follows it. */
  async replace(generation: string): Promise<void> {
    const failed = await this.files.writeFiles([{ path: this.path, text: renderGeneration(generation) }]);
    if (failed.length > 0)
      throw new UserError({
        message: `cannot record the campaign's new generation in ${this.path} of the workdir`,
        fix: 'check that the workdir is writable, then run --fresh again',
      });
    this.last = generation;
  }
}
