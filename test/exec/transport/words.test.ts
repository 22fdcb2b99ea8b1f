/**
 * Plain words (src/exec/transport/words.ts): what plainCommand accepts splits back into the
 * same words and holds no shell syntax; and LocalTransport.run, which runs them as an
 * automation node's wrapper does, through real bash.
 */
import { chmod, mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalTransport } from '../../../src/exec/transport/local.js';
import { LinkError } from '../../../src/exec/transport/transport.js';
import { type Word, plainCommand } from '../../../src/exec/transport/words.js';

const PLAIN_CHARS = [...'abcXYZ019_.,:=%@+/-'];
const plainChar = fc.constantFrom(...PLAIN_CHARS);
/** A word of plain characters. */
const plainText = (char = plainChar): fc.Arbitrary<string> =>
  fc.array(char, { minLength: 1, maxLength: 10 }).map((cs) => cs.join(''));
const globText = plainText(fc.constantFrom(...PLAIN_CHARS, '*', '?'));
const word: fc.Arbitrary<Word> = fc.oneof(
  plainText(),
  globText.map((glob) => ({ glob })),
);
const command = fc.tuple(plainText(), fc.array(word, { maxLength: 6 })).map(([name, rest]) => [name, ...rest]);
const text = (w: Word): string => (typeof w === 'string' ? w : w.glob);

describe('plainCommand', () => {
  it('gives back exactly the words when split at blanks', () => {
    fc.assert(
      fc.property(command, (words) => {
        expect(plainCommand(words).split(' ')).toEqual(words.map(text));
      }),
    );
  });

  it('accepts nothing with shell syntax, anywhere in any word', () => {
    const bad = fc.constantFrom(
      "'",
      '"',
      '\\',
      '$(',
      '$',
      ';',
      '&',
      '<',
      '>',
      '`',
      '\n',
      ' ',
      '\t',
      '~',
      '{',
      '[',
      '!',
      '(',
      '\u00e9',
    );
    fc.assert(
      fc.property(
        command,
        fc.nat(),
        plainText(),
        bad,
        plainText(),
        fc.boolean(),
        (words, n, before, b, after, glob) => {
          const i = n % words.length;
          const spoilt = [before, b, after].join('');
          const changed = words.map((w, j) => (j !== i ? w : glob && i > 0 ? { glob: spoilt } : spoilt));
          expect(() => plainCommand(changed)).toThrow(`word ${i + 1} of a plain command has ${JSON.stringify(b[0])}`);
        },
      ),
    );
  });

  it('refuses |, ^ and # anywhere, * and ? outside a glob word, and empty words', () => {
    for (const w of ['|a', 'a|', 'a|b', '|', '^a', 'a^b', '#a', 'a*', '?'])
      expect(() => plainCommand(['echo', w]), w).toThrow(/word 2 of a plain command has/);
    expect(() => plainCommand(['ls', { glob: '*|' }])).toThrow(/word 2 of a plain command has "\|" at character 2/);
    expect(() => plainCommand(['echo', ''])).toThrow('word 2 of a plain command is empty');
    expect(() => plainCommand([])).toThrow(/at least one word/);
    expect(() => plainCommand([{ glob: '/bin/e*' }])).toThrow(/first word .* cannot be a glob/);
  });

  it('names the offending word and character, never the whole command', () => {
    let message = '';
    try {
      plainCommand(['sbatch', '--secret-arg=abc', 'x;y']);
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toMatch(/^word 3 of a plain command has ";" at character 2/);
    expect(message).not.toContain('secret');
  });

  it('passes squeue formats and campaign paths as they are', () => {
    expect(plainCommand(['squeue', '-h', '-o', '%i@%j@%T', { glob: '/home/u/w/.campaign/slurm/c/*/markers/*' }])).toBe(
      'squeue -h -o %i@%j@%T /home/u/w/.campaign/slurm/c/*/markers/*',
    );
  });
});

describe('LocalTransport.run', () => {
  let home: string;
  let bin: string;
  let t: LocalTransport;

  beforeAll(async () => {
    home = await realpath(await mkdtemp(join(tmpdir(), 'local-words-home-')));
    bin = await realpath(await mkdtemp(join(tmpdir(), 'local-words-bin-')));
    // Prints its arguments NUL-separated: what the words became.
    await writeFile(join(bin, 'argv'), '#!/bin/bash\nfor a; do printf "%s\\0" "$a"; done\n');
    await chmod(join(bin, 'argv'), 0o755);
    await mkdir(join(home, 'd', 'x'), { recursive: true });
    await mkdir(join(home, 'd', 'y'));
    await writeFile(join(home, 'd', 'x', 'f'), 'X\n');
    await writeFile(join(home, 'd', 'y', 'f'), 'Y\n');
    t = new LocalTransport({ home });
  });
  afterAll(async () => {
    await rm(home, { recursive: true, force: true });
    await rm(bin, { recursive: true, force: true });
  });

  it('runs each word as itself; a glob matching nothing stays', async () => {
    // Glob words under a directory that is not there: none can match, so each stays as it is.
    const args = fc.array(
      fc.oneof(
        plainText(),
        globText.map((g) => ({ glob: `none/${g}` })),
      ),
      { maxLength: 6 },
    );
    await fc.assert(
      fc.asyncProperty(args, async (words) => {
        const r = await t.run([join(bin, 'argv'), ...words]);
        expect(r.code).toBe(0);
        expect(r.stdout.split('\0').slice(0, -1)).toEqual(words.map(text));
      }),
      { numRuns: 40 },
    );
  });

  it('expands a glob word from the home directory, as the node does', async () => {
    expect(await t.run(['cat', { glob: 'd/*/f' }])).toEqual({ code: 0, stdout: 'X\nY\n', stderr: '' });
    expect((await t.run(['cat', { glob: `${home}/d/?/f` }])).stdout).toBe('X\nY\n');
    const none = await t.run(['cat', { glob: 'd/*/nothing' }]);
    expect(none.code).not.toBe(0);
    expect(none.stderr).toContain('d/*/nothing');
  });

  it('passes stdin, reports the exit status, and 127 for a program that is not there', async () => {
    expect((await t.run(['cat'], { stdin: 'hello' })).stdout).toBe('hello');
    expect((await t.run(['ls', 'not-here'])).code).toBe(2);
    expect((await t.run(['no-such-program-campaign'])).code).toBe(127);
  });

  it('rejects a word that is not plain before running anything', async () => {
    const before = t.commandsSent;
    await expect(t.run(['echo', '$(id)'])).rejects.toThrow(/word 2 of a plain command has "\$"/);
    expect(t.commandsSent).toBe(before);
  });

  it('rejects on its timeout with a LinkError', async () => {
    await expect(t.run(['sleep', '30'], { timeoutMs: 200 })).rejects.toThrow(LinkError);
    expect((await t.run(['echo', 'after'])).stdout).toBe('after\n');
  });
});
