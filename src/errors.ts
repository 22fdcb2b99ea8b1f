/** A place in a manifest: 1-based line and column. */
export interface Position {
  file: string;
  line: number;
  column: number;
}

export function formatPosition(p: Position): string {
  return `${p.file}:${p.line}:${p.column}`;
}

/** One problem the user can fix, with where it is and how to fix it. */
export interface Problem {
  message: string;
  position?: Position;
  fix?: string;
}

/**
 * The one error type for mistakes the user can fix (bad manifest, bad flags, a refused
 * scheduler). Anything else thrown is a bug and is reported as such by the CLI.
 */
export class UserError extends Error {
  readonly problems: Problem[];
  constructor(problems: Problem[] | Problem | string) {
    const list =
      typeof problems === 'string' ? [{ message: problems }] : Array.isArray(problems) ? problems : [problems];
    super(list.map(formatProblem).join('\n'));
    this.name = 'UserError';
    this.problems = list;
  }
}

export function formatProblem(p: Problem): string {
  const where = p.position ? `${formatPosition(p.position)}: ` : '';
  const fix = p.fix ? ` (fix: ${p.fix})` : '';
  return `${where}${p.message}${fix}`;
}
