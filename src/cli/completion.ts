/**
 * `campaign completion bash|zsh|fish`: completion scripts made from the command table, so a
 * command or an option added there is completed without more work. Operands complete by
 * kind: a manifest or a path as files, a shell by name, and a task id (`logs FILE TASK`) from
 * the manifest's stored state, which the script asks of `campaign __tasks FILE [--state-dir DIR]`.
 */
import { UserError } from '../errors.js';
import { operandsOf, TASKS_COMMAND, type Command } from './command.js';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;

type Commands = Readonly<Record<string, Command>>;

export function completionScript(shell: string, commands: Commands): string {
  if (shell === 'bash') return bash(commands);
  if (shell === 'zsh') return zsh(commands);
  if (shell === 'fish') return fish(commands);
  throw new UserError({
    message: `campaign completes in bash, zsh and fish, not ${shell}`,
    fix: 'campaign completion bash (or zsh, or fish)',
  });
}

/** The first line of a command's help: what it does, for the shells that show it. */
const about = (entry: Command): string => entry.help.split('\n')[0]!.split('   ')[0]!;

/** A word of shell text in single quotes. */
const quote = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`;

/** Whether an option's value is a file or folder. */
const pathValue = (value: string | undefined): boolean => value === 'FILE' || value === 'DIR';

function bash(commands: Commands): string {
  const names = Object.keys(commands);
  const cases = Object.entries(commands).map(([name, command]) => {
    const options = Object.keys(command.options).map((o) => `--${o}`);
    const valued = Object.entries(command.options).filter(([, o]) => o.type === 'string');
    const values = valued.map(([o, spec]) => {
      const reply = spec.choices
        ? `COMPREPLY=($(compgen -W ${quote(spec.choices.join(' '))} -- "$cur"))`
        : pathValue(spec.value)
          ? `COMPREPLY=($(compgen -f -- "$cur"))`
          : 'COMPREPLY=()';
      return `        --${o}) ${reply}; return ;;`;
    });
    const { names: kinds, many } = operandsOf(command);
    return `    ${name})
      case "$prev" in
${values.join('\n')}
      esac
      options=${quote([...options, '--help'].join(' '))}
      valued=${quote(valued.map(([o]) => `--${o}`).join(' '))}
      kinds=(${kinds.map(quote).join(' ')})
      many=${many ? 1 : 0}
      ;;`;
  });
  return `# bash completion for campaign (campaign completion bash); in ~/.bashrc: source <(campaign completion bash)
_campaign() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}"
  local options="" valued="" many=0 kinds=()
  if ((COMP_CWORD == 1)); then
    COMPREPLY=($(compgen -W ${quote([...names, 'help'].join(' '))} -- "$cur"))
    return
  fi
  case "\${COMP_WORDS[1]}" in
${cases.join('\n')}
    *) return ;;
  esac
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$options" -- "$cur"))
    return
  fi
  # Which operand this word is: the words before it that are neither options nor their values.
  local i n=0 manifest="" state_dir=()
  for ((i = 2; i < COMP_CWORD; i++)); do
    local word="\${COMP_WORDS[i]}"
    if [[ $word == --state-dir ]]; then state_dir=(--state-dir "\${COMP_WORDS[i+1]}"); fi
    if [[ $word == -* ]]; then
      [[ " $valued " == *" $word "* ]] && ((i++))
      continue
    fi
    ((n == 0)) && manifest="$word"
    ((n++))
  done
  ((n >= \${#kinds[@]})) && { ((many)) || return; n=$((\${#kinds[@]} - 1)); }
  case "\${kinds[n]}" in
    TASK) COMPREPLY=($(compgen -W "$("\${COMP_WORDS[0]}" ${TASKS_COMMAND} "$manifest" "\${state_dir[@]}" 2>/dev/null)" -- "$cur")) ;;
    SHELL) COMPREPLY=($(compgen -W ${quote(SHELLS.join(' '))} -- "$cur")) ;;
    *) COMPREPLY=($(compgen -f -- "$cur")) ;;
  esac
}
complete -o filenames -F _campaign campaign
`;
}

/** zsh's text in an _arguments spec: brackets and colons escaped. */
const zshText = (text: string): string => text.replace(/([[\]:\\])/g, '\\$1').replace(/'/g, `'\\''`);

function zsh(commands: Commands): string {
  const list = Object.entries(commands).map(([name, command]) => `    ${quote(`${name}:${about(command)}`)}`);
  const cases = Object.entries(commands).map(([name, command]) => {
    const specs = Object.entries(command.options).map(([o, spec]) => {
      if (spec.type === 'boolean') return `'--${o}'`;
      const action = spec.choices ? `(${spec.choices.join(' ')})` : pathValue(spec.value) ? '_files' : ' ';
      return `'--${o}=:${zshText((spec.value ?? o).toLowerCase())}:${action}'`;
    });
    const { names: kinds, many } = operandsOf(command);
    const positional = kinds.map((kind, i) => {
      const action = kind === 'TASK' ? '_campaign_tasks' : kind === 'SHELL' ? `(${SHELLS.join(' ')})` : '_files';
      return many && i === kinds.length - 1
        ? `'*:${kind.toLowerCase()}:${action}'`
        : `'${i + 1}:${kind.toLowerCase()}:${action}'`;
    });
    return `    ${name}) _arguments -S ${[...specs, ...positional].join(' ')} ;;`;
  });
  return `#compdef campaign
# zsh completion for campaign (campaign completion zsh > "\${fpath[1]}/_campaign")
_campaign_tasks() {
  local manifest=\${line[1]} dir=\${opt_args[--state-dir]}
  local -a ids
  ids=(\${(f)"$(campaign ${TASKS_COMMAND} "$manifest" \${dir:+--state-dir "$dir"} 2>/dev/null)"})
  compadd -a ids
}
_campaign() {
  local -a commands
  commands=(
${list.join('\n')}
  )
  if ((CURRENT == 2)); then
    _describe command commands
    return
  fi
  local command=\${words[2]}
  shift words
  ((CURRENT--))
  case $command in
${cases.join('\n')}
  esac
}
if [[ $zsh_eval_context[-1] == loadautofunc ]]; then _campaign "$@"; else compdef _campaign campaign; fi
`;
}

function fish(commands: Commands): string {
  const names = Object.keys(commands).join(' ');
  const lines = [
    '# fish completion for campaign (campaign completion fish > ~/.config/fish/completions/campaign.fish)',
    'complete -c campaign -f',
    `function __campaign_manifest
    set -l words (commandline -opc)
    for word in $words[3..-1]
        if not string match -q -- '-*' $word
            echo $word
            return
        end
    end
end`,
  ];
  for (const [name, command] of Object.entries(commands)) {
    lines.push(
      `complete -c campaign -n "not __fish_seen_subcommand_from ${names}" -a ${name} -d ${quote(about(command))}`,
    );
    const when = `-n "__fish_seen_subcommand_from ${name}"`;
    for (const [o, spec] of Object.entries(command.options)) {
      const value =
        spec.type === 'boolean'
          ? ''
          : spec.choices
            ? ` -x -a ${quote(spec.choices.join(' '))}`
            : pathValue(spec.value)
              ? ' -r -F'
              : ' -x';
      lines.push(`complete -c campaign ${when} -l ${o}${value}`);
    }
    const { names: kinds } = operandsOf(command);
    if (kinds.includes('TASK'))
      lines.push(`complete -c campaign ${when} -a "(campaign ${TASKS_COMMAND} (__campaign_manifest) 2>/dev/null)"`);
    if (kinds.includes('SHELL')) lines.push(`complete -c campaign ${when} -a ${quote(SHELLS.join(' '))}`);
    if (kinds.some((k) => k !== 'TASK' && k !== 'SHELL')) lines.push(`complete -c campaign ${when} -F`);
  }
  return lines.join('\n') + '\n';
}
