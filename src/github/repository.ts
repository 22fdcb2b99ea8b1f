/** Which GitHub repository a checkout's remote names, and where that host's REST API is. */
import { UserError } from '../errors.js';

export interface Repository {
  /** `github.com`, or a GitHub Enterprise Server's host. */
  host: string;
  owner: string;
  repo: string;
}

/**
 * The repository of a git remote URL: `https://HOST/OWNER/REPO(.git)`, `ssh://git@HOST(:PORT)/OWNER/REPO(.git)`
 * or scp-like `git@HOST:OWNER/REPO(.git)`; undefined for any other (a local path, a nested path).
 */
export function parseRemote(url: string): Repository | undefined {
  const m =
    /^(?:https?|ssh|git):\/\/(?:[^@/]+@)?([^/:]+)(?::\d+)?\/([^/]+)\/([^/]+?)(?:\.git)?\/?$/.exec(url.trim()) ??
    /^(?:[^@/]+@)?([^/:]+):([^/]+)\/([^/]+?)(?:\.git)?\/?$/.exec(url.trim());
  if (!m) return undefined;
  return { host: m[1]!.toLowerCase(), owner: m[2]!, repo: m[3]! };
}

/** `--repo OWNER/REPO`, on github.com. */
export function parseRepoOption(value: string): Repository {
  const m = /^([\w.-]+)\/([\w.-]+)$/.exec(value);
  if (!m)
    throw new UserError({
      message: `--repo ${value} is not OWNER/REPO`,
      fix: 'give the repository as GitHub names it, e.g. --repo octo-lab/experiments',
    });
  return { host: 'github.com', owner: m[1]!, repo: m[2]! };
}

/** The REST API's root for a host: github.com's, or a GitHub Enterprise Server's under /api/v3. */
export function apiUrlFor(host: string): string {
  return host === 'github.com' ? 'https://api.github.com' : `https://${host}/api/v3`;
}
