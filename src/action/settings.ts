/**
 * The action's inputs as typed settings: every input is read here, once, and a bad value is a
 * UserError naming the input and the fix. Inputs arrive as strings ('' when not given).
 */
import { z } from 'zod';
import { UserError } from '../errors.js';
import { parseDuration } from '../manifest/units.js';
import { JOB_STAGES } from '../manifest/expand.js';

export const COMMANDS = ['plan', 'check', 'advance', 'gate', 'summary', 'plan-comment'] as const;

/** Reads one input by its name in action.yml ('' when not given), e.g. core.getInput. */
export type InputReader = (name: string) => string;

const optional = z
  .string()
  .transform((s) => s.trim())
  .transform((s) => (s === '' ? undefined : s));

const bool = (fallback: boolean) =>
  z
    .string()
    .trim()
    .transform((s) => s.toLowerCase())
    .pipe(z.enum(['', 'true', 'false'], { error: 'is not true or false' }))
    .transform((s) => (s === '' ? fallback : s === 'true'));

const duration = z
  .string()
  .trim()
  .transform((s, ctx) => {
    const seconds = parseDuration(s === '' ? '5h' : s);
    if (seconds === undefined || seconds <= 0) {
      ctx.addIssue({ code: 'custom', message: `"${s}" is not a duration (e.g. 5h, 90m, 5h30m)` });
      return z.NEVER;
    }
    return seconds;
  });

/**
 * A workflow file of this repository by its name alone (`campaign-x-resume.yml`): never a path,
 * so an input cannot name a file outside `.github/workflows`.
 */
const workflowFile = optional.pipe(
  z
    .string()
    .regex(/^[A-Za-z0-9_.-]+\.ya?ml$/, 'is not the file name of a workflow (e.g. campaign-x-resume.yml)')
    .optional(),
);

const mainInputs = z
  .object({
    command: z.enum(COMMANDS, { error: `is not one of ${COMMANDS.join(', ')}` }),
    manifest: z.string().trim().min(1, 'is required: the path of the campaign manifest'),
    phase: optional,
    stage: z
      .string()
      .trim()
      .transform((s) => (s === '' ? 'all' : s))
      .pipe(z.enum(JOB_STAGES, { error: `is not one of ${JOB_STAGES.join(', ')}` })),
    budget: duration,
    handover: z
      .string()
      .trim()
      .transform((s) => (s === '' ? 'dispatch' : s))
      .pipe(z.enum(['dispatch', 'none'], { error: 'is not dispatch or none' })),
    park: z
      .string()
      .trim()
      .transform((s, ctx) => {
        if (s === '') return undefined;
        const seconds = parseDuration(s);
        if (seconds === undefined || seconds <= 0) {
          ctx.addIssue({ code: 'custom', message: `"${s}" is not a duration (e.g. 5m)` });
          return z.NEVER;
        }
        return seconds;
      }),
    resume: bool(false),
    'resume-workflow': workflowFile,
    'campaign-workflow': workflowFile,
    'retry-failed': bool(false),
    'keep-changed': bool(false),
    'state-dir': optional,
    'ssh-key': optional,
    'ssh-passphrase': optional,
    token: optional,
  })
  .superRefine((v, ctx) => {
    if (v.command === 'gate' && v.phase === undefined)
      ctx.addIssue({ code: 'custom', path: ['phase'], message: 'is required for command gate' });
    if (v.resume && v.phase !== undefined)
      ctx.addIssue({ code: 'custom', path: ['resume'], message: 'drives what parked: leave `phase:` out' });
    if (v['campaign-workflow'] !== undefined && !v.resume)
      ctx.addIssue({
        code: 'custom',
        path: ['campaign-workflow'],
        message: 'names the workflow a resume starts again: set it only with `resume: true`',
      });
    if (v.stage !== 'all' && v.phase === undefined)
      ctx.addIssue({ code: 'custom', path: ['stage'], message: 'needs a phase: set `phase:` too' });
  });

export type MainSettings = z.output<typeof mainInputs>;

const lintInputs = z.object({
  manifests: z
    .string()
    .transform((s) => s.split(/[\n,]/).map((x) => x.trim()))
    .transform((xs) => xs.filter((x) => x !== ''))
    .transform((xs) => (xs.length === 0 ? ['campaigns'] : xs)),
  strict: bool(false),
  'check-workflow': bool(true),
});

export type LintSettings = z.output<typeof lintInputs>;

function parse<S extends z.ZodType<unknown, Record<string, string>>>(schema: S, names: string[], read: InputReader) {
  const raw = Object.fromEntries(names.map((n) => [n, read(n)]));
  // Without zod's fast path, which writes and compiles a parser on an object schema's first
  // parse: the inputs are parsed once, at start-up.
  const parsed = schema.safeParse(raw, { jitless: true });
  if (parsed.success) return parsed.data as z.output<S>;
  throw new UserError(
    parsed.error.issues.map((i) => {
      const name = String(i.path[0] ?? '');
      return {
        message: `input "${name}" ${i.message}${raw[name] ? ` (got "${raw[name]}")` : ''}`,
        fix: `set \`with: ${name}:\` in the workflow step (see action.yml for the values it takes)`,
      };
    }),
  );
}

export function readMainSettings(read: InputReader): MainSettings {
  return parse(mainInputs, Object.keys(mainInputs.shape), read);
}

export function readLintSettings(read: InputReader): LintSettings {
  return parse(lintInputs, Object.keys(lintInputs.shape), read);
}
