/**
 * The ssh-gpu executor's warnings that would repeat every pass (a probe that fails, tasks that
 * wait): each is said once, and again only when what it says changes.
 */
import type { Server } from './server.js';

export class Notes {
  /** Key → the message last said under it. */
  private readonly said = new Map<string, string>();

  constructor(private readonly warn: (message: string) => void) {}

  /** Says `message` unless it is what was said last under `key`. */
  say(key: string, message: string): void {
    if (this.said.get(key) === message) return;
    this.said.set(key, message);
    this.warn(message);
  }

  /** Forgets what was said under `key`: once the trouble is over, its return is said again. */
  forget(key: string): void {
    this.said.delete(key);
  }
}

/** A note's key on a server: the single server's keys are the bare ones. */
export const noteKey = (s: Server, what: string): string => (s.name === undefined ? what : `${s.name} ${what}`);
