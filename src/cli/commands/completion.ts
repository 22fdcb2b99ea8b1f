/** `campaign completion SHELL`: a completion script made from the command table (../completion.ts). */
import { EXIT, type Command, type Given } from '../command.js';

export const command: Command = {
  synopsis: 'completion SHELL',
  help: `a completion script for bash, zsh or fish: commands, options, their values, and the task ids
of a manifest's stored state for logs   --state-dir of the command line is followed`,
  options: {},
  examples: [
    'source <(campaign completion bash)        # in ~/.bashrc',
    'campaign completion zsh > "${fpath[1]}/_campaign"',
    'campaign completion fish > ~/.config/fish/completions/campaign.fish',
  ],
  run: completion,
};

/** `campaign completion SHELL`: the script that completes campaign's command line in that shell. */
async function completion({ files }: Given): Promise<number> {
  // The table is main.ts's, loaded already: the script completes every command in it.
  const [{ completionScript }, { COMMANDS }] = await Promise.all([import('../completion.js'), import('../main.js')]);
  process.stdout.write(completionScript(files[0]!, COMMANDS));
  return EXIT.ok;
}
