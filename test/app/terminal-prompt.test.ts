/**
 * The keyboard-interactive prompt on a real terminal: a pseudo-terminal (python3's pty) runs
 * the built prompt and types answers once each prompt shows, as a user would; what the
 * terminal shows is checked for echo, and for what the server sent: no escape sequence of its
 * reaches the terminal.
 */
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { REPO, useBuiltCliAndTemp } from '../helpers/cli.js';

const run = promisify(execFile);
const tempRoot = useBuiltCliAndTemp('terminal-prompt');

/** Runs argv on a pty; for each [shown, typed] waits until `shown` appears, then types `typed`; returns the screen. */
const DRIVER = `
import json, os, pty, select, sys, time
steps = json.loads(sys.argv[1])
pid, fd = pty.fork()
if pid == 0:
    os.execvp(sys.argv[2], sys.argv[2:])
out = b''
def more(deadline):
    global out
    r, _, _ = select.select([fd], [], [], max(0, deadline - time.time()))
    if not r:
        sys.exit('timed out; the screen was %r' % out)
    try:
        chunk = os.read(fd, 1024)
    except OSError:
        chunk = b''
    out += chunk
    return chunk != b''
for shown, typed in steps:
    deadline = time.time() + 30
    while shown.encode() not in out:
        if not more(deadline):
            sys.exit('ended before %r; the screen was %r' % (shown, out))
    os.write(fd, typed.encode())
deadline = time.time() + 30
while more(deadline):
    pass
os.waitpid(pid, 0)
sys.stdout.write(out.decode())
`;

const DUO = {
  host: 'login.example',
  name: '',
  instructions: 'Duo two-factor login',
  prompts: [
    { prompt: 'Passcode: ', echo: false },
    { prompt: 'Device: ', echo: true },
  ],
};

async function onTerminal(steps: [string, string][], request: object = DUO): Promise<string> {
  const driver = join(tempRoot(), 'drive.py');
  await writeFile(driver, DRIVER);
  const module = join(REPO, 'lib', 'app', 'terminal-prompt.js');
  const program = `import(${JSON.stringify(module)})
  .then((m) => m.askOnTerminal(${JSON.stringify(request)}))
  .then((a) => console.log('ANSWERS ' + JSON.stringify(a)), (e) => console.log('REFUSED ' + e.message));`;
  const { stdout } = await run('python3', [driver, JSON.stringify(steps), process.execPath, '-e', program], {
    timeout: 60_000,
  });
  return stdout;
}

describe('askOnTerminal', () => {
  it('shows the host and instructions, hides an echo-off answer, echoes the other with its erases', async () => {
    const screen = await onTerminal([
      ['Passcode: ', '123456\r'],
      ['Device: ', 'phonex\u007f\r'],
    ]);
    expect(screen).toContain('login.example asks:\r\nDuo two-factor login\r\n');
    const shown = screen.slice(0, screen.indexOf('ANSWERS'));
    expect(shown).not.toContain('123456');
    expect(shown).toContain('Device: phonex\b \b');
    expect(screen).toContain('ANSWERS ["123456","phone"]');
  });

  it("shows a bastion's name, instructions and prompt without their escape sequences", async () => {
    const screen = await onTerminal([['Code: ', '42\r']], {
      host: 'bastion',
      name: 'Duo \u001b]0;owned\u0007',
      instructions: 'Go to \u001b]8;;https://evil.example\u001b\\here\u001b]8;;\u001b\\ \u001b[2J',
      prompts: [{ prompt: '\u009b31m\u001b[8mCode: ', echo: true }],
    });
    expect(screen).toContain('bastion asks:\r\nDuo ]0;owned\r\nGo to ]8;;https://evil.example\\here]8;;\\ [2J\r\n');
    expect(screen).toContain('31m[8mCode: 42');
    expect(screen).toContain('ANSWERS ["42"]');
    // eslint-disable-next-line no-control-regex -- control characters are what it looks for
    expect(screen).not.toMatch(/[\u001b\u0007\u009b]/);
  });

  it('takes Ctrl-C as no answer, and never shows what was typed', async () => {
    const screen = await onTerminal([['Passcode: ', '12\u0003']]);
    expect(screen).toContain('REFUSED no answer given');
    expect(screen).not.toContain('12');
  });
});
