/**
 * campaign(1), made from the command table as `--help` is: each command's synopsis, what it
 * does, its options and examples, then the exit statuses. `npm run man` writes it to
 * man/campaign.1, which the package ships (test/cli/completion.test.ts keeps the two equal).
 */
import type { Command } from './command.js';

/** Text as roff reads it: backslashes and hyphens escaped, a line never starting with a control character. */
function roff(text: string): string {
  return text
    .replace(/\\/g, '\\e')
    .replace(/-/g, '\\-')
    .split('\n')
    .map((l) => (/^[.']/.test(l) ? `\\&${l}` : l))
    .join('\n');
}

export function manPage(commands: Readonly<Record<string, Command>>, exitStatus: string): string {
  const sections = Object.values(commands).map((command) => {
    const options = Object.entries(command.options).map(([name, o]) => {
      const value =
        o.type === 'boolean' ? '' : ` \\fI${roff(o.choices ? o.choices.join('|') : (o.value ?? 'VALUE'))}\\fR`;
      return `.TP\n\\fB\\-\\-${roff(name)}\\fR${value}`;
    });
    const examples = command.examples.map((e) => `.nf\n    ${roff(e)}\n.fi`);
    return [
      `.SS ${roff(command.synopsis)}`,
      roff(command.help),
      ...(options.length > 0 ? ['.PP\nOptions:', '.RS', ...options, '.RE'] : []),
      '.PP\nExamples:',
      ...examples,
    ].join('\n');
  });
  return `.TH CAMPAIGN 1 "" "campaign" "User Commands"
.SH NAME
campaign \\- turn a committed experiment manifest into staged cluster submissions and carry the campaign through to verified results
.SH SYNOPSIS
\\fBcampaign\\fR \\fIcommand\\fR [\\fIoptions\\fR]
.br
\\fBcampaign\\fR \\fIcommand\\fR \\fB\\-\\-help\\fR
.SH COMMANDS
${sections.join('\n')}
.SH EXIT STATUS
${roff(exitStatus.replace(/^Exit status: /, ''))}
.SH SEE ALSO
\\fBcampaign completion\\fR bash|zsh|fish; the README and docs/ of the package
`;
}
