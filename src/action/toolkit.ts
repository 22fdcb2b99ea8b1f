/**
 * The workflow commands every module of the actions writes through (`core.info`, …): the
 * actions' own (commands.ts) unless an entry point chooses another. The bundles keep their own,
 * which load no HTTP client; the entries GitHub's local runner tool calls from source choose
 * @actions/core, since the tool puts its own in that library's place and sees nothing else.
 */
import * as commands from './commands.js';

/** What the actions use of @actions/core, which both it and commands.ts provide. */
export type Toolkit = Pick<
  typeof commands,
  'getInput' | 'info' | 'notice' | 'warning' | 'error' | 'setFailed' | 'setSecret' | 'setOutput'
>;

let chosen: Toolkit = commands;

/** Sends every workflow command of this process through `toolkit` from now on. */
export function useToolkit(toolkit: Toolkit): void {
  chosen = toolkit;
}

/** The chosen toolkit's commands, looked up at each call, so that a later choice holds everywhere. */
export const core: Toolkit = {
  getInput: (...a) => chosen.getInput(...a),
  info: (...a) => chosen.info(...a),
  notice: (...a) => chosen.notice(...a),
  warning: (...a) => chosen.warning(...a),
  error: (...a) => chosen.error(...a),
  setFailed: (...a) => chosen.setFailed(...a),
  setSecret: (...a) => chosen.setSecret(...a),
  setOutput: (...a) => chosen.setOutput(...a),
};
