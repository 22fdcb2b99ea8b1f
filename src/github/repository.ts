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

/** `--repo OWNER/REPO`, on `host`. */
export function parseRepoOption(value: string, host: string): Repository {
  const m = /^([\w.-]+)\/([\w.-]+)$/.exec(value);
  if (!m)
    throw new UserError({
      message: `--repo ${value} is not OWNER/REPO`,
      fix: 'give the repository as GitHub names it, e.g. --repo octo-lab/experiments',
    });
  return { host, owner: m[1]!, repo: m[2]! };
}

/** Where a repository's REST API is, and where its token comes from (as the GitHub CLI takes it). */
export interface Endpoint {
  /** The API's root: https://api.github.com, or the GitHub Enterprise Server's that GITHUB_API_URL names. */
  apiUrl: string;
  /** The variables that may hold the token, in order. */
  tokenVariables: string[];
  /** The host `gh auth token --hostname` is asked for. */
  ghHost: string;
}

const GITHUB_COM = 'github.com';
/** The names a github.com remote goes by. */
const GITHUB_COM_HOSTS = new Set([GITHUB_COM, 'www.github.com', 'ssh.github.com']);

/** The host of an explicit GITHUB_API_URL (GitHub Enterprise Server), or undefined where it names github.com's API or nothing. */
export function enterpriseHost(apiUrl: string | undefined): string | undefined {
  if (!apiUrl) return undefined;
  let host: string;
  try {
    host = new URL(apiUrl).hostname.toLowerCase();
  } catch {
    throw new UserError({
      message: `GITHUB_API_URL (${apiUrl}) is not a URL`,
      fix: "set it to your GitHub Enterprise Server's API (https://HOST/api/v3), or unset it for github.com",
    });
  }
  return host === 'api.github.com' ? undefined : host;
}

/**
 * Where to read a repository on `host` from, or undefined when the host is not GitHub. A token
 * is only ever sent to github.com's API, or to the GitHub Enterprise Server that GITHUB_API_URL
 * names explicitly, and only for a repository on that same host: a remote naming any other host
 * (a mistake, or a server that would take the token and serve a "state") gets none.
 */
export function endpointFor(host: string, apiUrl: string | undefined): Endpoint | undefined {
  const h = host.toLowerCase();
  if (GITHUB_COM_HOSTS.has(h))
    return { apiUrl: 'https://api.github.com', tokenVariables: ['GITHUB_TOKEN', 'GH_TOKEN'], ghHost: GITHUB_COM };
  const enterprise = enterpriseHost(apiUrl);
  if (enterprise !== undefined && enterprise === h)
    return { apiUrl: apiUrl!, tokenVariables: ['GH_ENTERPRISE_TOKEN', 'GITHUB_ENTERPRISE_TOKEN'], ghHost: h };
  return undefined;
}
