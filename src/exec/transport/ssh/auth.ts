/**
 * Logging in to one host: the private keys (the variable's text, the key file, the identity
 * files), their passphrase, the ssh-agent, and a keyboard-interactive second factor asked only
 * through the front end. Apart from the connection because what a login offers, and what it
 * says when refused, is its own question, asked once per hop.
 *
 * - Keys are tried in order: the key's text from a variable, the key file, the ssh-agent, then
 *   the hop's identity files (the config's, or the default ones). A keyboard-interactive
 *   prompt (a second factor) is answered only through the `keyboardInteractive` function,
 *   which the front end gives when there is a terminal to ask on.
 * - No private key's text nor passphrase appears in an error message: errors that come from
 *   ssh2 pass through `redact` (made by `redactor`) before they reach one.
 */
import { readFileSync } from 'node:fs';
import ssh2 from 'ssh2';
import type { AnyAuthMethod, AuthHandlerMiddleware, NextAuthHandler, ParsedKey, Prompt } from 'ssh2';
import { UserError } from '../../../errors.js';
import type { SshTarget } from '../target.js';

/** One keyboard-interactive round: the server's prompts, answered in order. */
export interface KeyboardInteractiveRequest {
  /** The host asking, as messages name it. */
  host: string;
  name: string;
  instructions: string;
  prompts: readonly Prompt[];
}

/** Asks the user; rejects when the user will not answer. */
export type KeyboardInteractive = (request: KeyboardInteractiveRequest) => Promise<string[]>;

/** Where the keys come from, and who answers a keyboard-interactive prompt. */
export interface KeyOptions {
  /** The private key's file. */
  keyFile?: string;
  /** The name of an environment variable holding the private key's text (e.g. a CI secret). */
  keyEnv?: string;
  /** The name of an environment variable holding the key's passphrase. */
  passphraseEnv?: string;
  /** Where keyEnv and passphraseEnv are looked up; process.env by default. */
  env?: Readonly<Record<string, string | undefined>>;
  /** The ssh-agent's socket (SSH_AUTH_SOCK). */
  agent?: string;
  /** Answers keyboard-interactive prompts; without it a server asking for one is refused. */
  keyboardInteractive?: KeyboardInteractive;
}

/** A private key ready to offer, and where it came from (as messages say it). */
export interface Key {
  text: string;
  passphrase: string | undefined;
  source: string;
}

/**
 * One hop's login: the keys in order, then a keyboard-interactive round if the server asks
 * for one (a second factor after the key, or instead of it) and there is someone to ask. It
 * records what was tried, for the message when nothing was accepted.
 */
export class Authentication {
  private readonly queue: { source: string; method: AnyAuthMethod }[];
  private readonly tried: string[] = [];
  private kbd: 'not asked' | 'asked, nobody to answer' | 'answered' | 'answered after the key' = 'not asked';
  private gaveUp = false;
  private readonly notes: string[] = [];

  constructor(
    private readonly hop: { readonly name: string; readonly target: SshTarget },
    keys: readonly Key[],
    agent: string | undefined,
    private readonly prompt: KeyboardInteractive | undefined,
  ) {
    const username = hop.target.user;
    this.queue = [
      ...keys.map((k) => ({
        source: k.source,
        method: {
          type: 'publickey' as const,
          username,
          key: k.text,
          ...(k.passphrase ? { passphrase: k.passphrase } : {}),
        },
      })),
      ...(agent ? [{ source: `the ssh-agent at ${agent}`, method: { type: 'agent' as const, username, agent } }] : []),
    ];
  }

  readonly handler: AuthHandlerMiddleware = (methodsLeft, partialSuccess, next) => {
    // ssh2 passes null before the first attempt, and false stops it (its types say neither).
    const left = methodsLeft as string[] | null;
    const stop = () => {
      this.gaveUp = true;
      (next as unknown as (m: false) => void)(false);
    };
    const secondFactor =
      partialSuccess === true ||
      (left !== null && !left.includes('publickey') && left.includes('keyboard-interactive'));
    if (!secondFactor) {
      const attempt = this.queue.shift();
      if (attempt) {
        this.tried.push(attempt.source);
        next(attempt.method);
        return;
      }
    }
    const offered = secondFactor || left?.includes('keyboard-interactive') === true;
    if (!offered || this.kbd !== 'not asked') return stop();
    if (!this.prompt) {
      // Only a second factor is worth saying: a password prompt after refused keys is not the problem.
      if (secondFactor) this.kbd = 'asked, nobody to answer';
      return stop();
    }
    this.kbd = secondFactor ? 'answered after the key' : 'answered';
    const prompt = this.prompt;
    (next as NextAuthHandler)({
      type: 'keyboard-interactive',
      username: this.hop.target.user,
      prompt: (name, instructions, _lang, prompts, finish) => {
        prompt({ host: this.hop.name, name, instructions, prompts }).then(finish, () => finish([]));
      },
    });
  };

  /** Whether an error during login leaves ssh2 going on to the next method (noted for the message). */
  goesOn(e: Error & { level?: string }): boolean {
    if (e.level === 'agent' || (e.level === 'client-authentication' && !this.gaveUp)) {
      this.notes.push(e.level === 'agent' ? `the ssh-agent failed (${e.message})` : e.message);
      return true;
    }
    return false;
  }

  /** The UserError for a login that was refused. */
  failure(noKeys: readonly string[]): UserError {
    const name = this.hop.name;
    const user = this.hop.target.user;
    if (this.kbd === 'asked, nobody to answer') {
      return new UserError({
        message: `${name} asks for a second factor (keyboard-interactive) after the key, and there is no terminal to ask it on`,
        fix: 'run campaign in a terminal to answer it, or where no second factor is asked: an automation node the cluster provides for unattended jobs, or a self-hosted runner on the login node itself (which needs no SSH)',
      });
    }
    if (this.kbd === 'answered after the key') {
      return new UserError({
        message: `${name} accepted the key but not the answer to its second factor (keyboard-interactive)`,
        fix: 'connect again and give the current code (or the answer the prompt asks for)',
      });
    }
    const tried = this.tried.length > 0 ? this.tried.join(', then ') : 'no key';
    const extra = [...this.notes, ...(this.tried.length === 0 ? noKeys : [])];
    const answered = this.kbd === 'answered' ? '; the keyboard-interactive answers were not accepted either' : '';
    return new UserError({
      message: `${name} did not accept the private key from ${tried}${extra.length ? ` (${extra.join('; ')})` : ''}${answered}`,
      fix: `authorise its public key (ssh-keygen -y -f <key file>) in ~/.ssh/authorized_keys of ${user} there, or give the key that is`,
    });
  }
}

/** The keys from the variable and the key file (at most one of them), checked to be usable. */
export function readKeys(opts: KeyOptions): Key[] {
  const env = opts.env ?? process.env;
  if (opts.keyFile !== undefined && opts.keyEnv !== undefined) {
    throw new UserError({
      message: 'give the SSH private key either as a file or as an environment variable, exactly one of them',
      fix: 'set the key file path, or the name of the variable (e.g. a CI secret) that holds the key',
    });
  }
  let text: string;
  let source: string;
  if (opts.keyEnv !== undefined) {
    source = `environment variable ${opts.keyEnv}`;
    text = env[opts.keyEnv] ?? '';
    if (text.trim() === '') {
      throw new UserError({
        message: `${source} (the SSH private key) is not set or empty`,
        fix: `set ${opts.keyEnv}`,
      });
    }
  } else if (opts.keyFile !== undefined) {
    source = `file ${opts.keyFile}`;
    try {
      text = readFileSync(opts.keyFile, 'utf8');
    } catch (e) {
      throw new UserError({
        message: `cannot read the SSH private key ${source}: ${(e as NodeJS.ErrnoException).code ?? 'error'}`,
        fix: 'give the path of an existing private key file',
      });
    }
  } else return [];
  // An unset passphrase variable means an unencrypted key; parseKey says so if it is not.
  const passphrase = opts.passphraseEnv === undefined ? undefined : env[opts.passphraseEnv];
  const problem = keyProblem(text, passphrase);
  if (problem === 'public') {
    throw new UserError({
      message: `${source} holds a public key, not the private key`,
      fix: 'give the private key file (the one without .pub)',
    });
  }
  if (problem !== undefined) {
    const looksLikePath = opts.keyEnv !== undefined && !text.trim().includes('\n') && !text.includes('PRIVATE KEY');
    throw new UserError({
      message: `the SSH private key from ${source} cannot be used: ${redactor([text, passphrase ?? ''])(problem)}`,
      fix: looksLikePath
        ? `${opts.keyEnv} must hold the key's text, not a path: give a path as the key file instead`
        : `give an OpenSSH or PEM private key${opts.passphraseEnv ? ` (and its passphrase in ${opts.passphraseEnv} if it is encrypted)` : ', and its passphrase variable if it is encrypted'}`,
    });
  }
  return [{ text, passphrase, source }];
}

/**
 * The identity files that hold a usable key; the others are skipped, as ssh skips them, with
 * the reason kept for the message should no key be accepted. An encrypted one is tried with
 * the passphrase variable's value when there is one.
 */
export function readIdentityFiles(files: readonly string[], opts: KeyOptions): { keys: Key[]; skipped: string[] } {
  const env = opts.env ?? process.env;
  const passphrase = opts.passphraseEnv === undefined ? undefined : env[opts.passphraseEnv];
  const keys: Key[] = [];
  const skipped: string[] = [];
  for (const path of files) {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      skipped.push(code === 'ENOENT' ? `no key file ${path}` : `key file ${path} unreadable (${code ?? 'error'})`);
      continue;
    }
    const problem = keyProblem(text, passphrase);
    if (problem === undefined) keys.push({ text, passphrase, source: `file ${path}` });
    else
      skipped.push(`key file ${path} unusable (${problem === 'public' ? 'a public key' : 'encrypted or not a key'})`);
  }
  return { keys, skipped };
}

/** Why a key's text cannot log in: ssh2's parse error, 'public' for a public key, or undefined. */
function keyProblem(text: string, passphrase: string | undefined): string | undefined {
  const parsed = ssh2.utils.parseKey(text, passphrase);
  const key = Array.isArray(parsed) ? (parsed[0] as ParsedKey) : parsed;
  if (key instanceof Error) return key.message;
  return key.isPrivateKey() ? undefined : 'public';
}

/** Replaces every secret, and every line of it long enough to be one, in a message. */
export function redactor(secrets: readonly string[]): (message: string) => string {
  const parts = [...new Set(secrets.flatMap((s) => [s.trim(), ...s.split(/\r?\n/).map((l) => l.trim())]))]
    .filter((p) => p.length >= 4)
    .sort((a, b) => b.length - a.length);
  return (message) => parts.reduce((m, p) => m.split(p).join('[redacted]'), message);
}
