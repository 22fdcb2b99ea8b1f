/**
 * The keyboard-interactive prompt on a real terminal: a pseudo-terminal (python3's pty) runs
 * the built prompt and types answers once each prompt shows, as a user would; what the
 * terminal shows is checked for echo.
 */
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { REPO, useBuiltCliAndTemp } from '../../helpers/cli.js';

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

async function onTerminal(steps: [string, string][]): Promise<string> {
  const driver = join(tempRoot(), 'drive.py');
  await writeFile(driver, DRIVER);
  const module = join(REPO, 'lib', 'exec', 'transport', 'terminal-prompt.js');
  const program = `import(${JSON.stringify(module)})
  .then((m) => m.askOnTerminal({ host: 'login.example', name: '', instructions: 'Duo two-factor login',
    prompts: [{ prompt: 'Passcode: ', echo: false }, { prompt: 'Device: ', echo: true }] }))
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

  it('takes Ctrl-C as no answer, and never shows what was typed', async () => {
    const screen = await onTerminal([['Passcode: ', '12\u0003']]);
    expect(screen).toContain('REFUSED no answer given');
    expect(screen).not.toContain('12');
  });
});
