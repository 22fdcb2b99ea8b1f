/** The action's inputs become typed settings in one place; a bad value is a user error naming the input. */
import { expect, test } from 'vitest';
import { readLintSettings, readMainSettings } from '../../src/action/settings.js';
import { UserError } from '../../src/errors.js';

const reader =
  (inputs: Record<string, string>) =>
  (name: string): string =>
    inputs[name] ?? '';

test('defaults and conversions', () => {
  expect(readMainSettings(reader({ command: 'advance', manifest: 'campaigns/x.yml' }))).toEqual({
    command: 'advance',
    manifest: 'campaigns/x.yml',
    stage: 'all',
    budget: 5 * 3600,
    handover: 'dispatch',
    resume: false,
    'retry-failed': false,
    'keep-changed': false,
  });
  expect(readMainSettings(reader({ command: 'advance', manifest: 'm.yml', park: '5m', resume: 'true' }))).toMatchObject(
    { park: 300, resume: true },
  );
  expect(
    readMainSettings(
      reader({
        command: 'advance',
        manifest: 'm.yml',
        resume: 'true',
        'resume-workflow': ' campaign-x-resume.yml ',
        'campaign-workflow': 'campaign-x.yml',
      }),
    ),
  ).toMatchObject({ 'resume-workflow': 'campaign-x-resume.yml', 'campaign-workflow': 'campaign-x.yml' });
  const s = readMainSettings(
    reader({
      command: 'advance',
      manifest: 'm.yml',
      phase: ' train ',
      stage: 'smoke',
      budget: '1h30m',
      'retry-failed': 'TRUE',
      'keep-changed': 'true',
      'ssh-key': 'KEY',
    }),
  );
  expect(s).toMatchObject({
    phase: 'train',
    stage: 'smoke',
    budget: 5400,
    'retry-failed': true,
    'keep-changed': true,
    'ssh-key': 'KEY',
  });
  expect(readLintSettings(reader({}))).toEqual({ manifests: ['campaigns'], strict: false, 'check-workflow': true });
  expect(readLintSettings(reader({ manifests: 'a.yml\nb.yml, dir\n' })).manifests).toEqual(['a.yml', 'b.yml', 'dir']);
});

test.each([
  [
    { command: 'go', manifest: 'm.yml' },
    'input "command" is not one of plan, check, advance, gate, summary, plan-comment (got "go")',
  ],
  [{ command: 'plan', manifest: '' }, 'input "manifest" is required'],
  [{ command: 'advance', manifest: 'm.yml', budget: 'soon' }, 'input "budget" "soon" is not a duration'],
  [{ command: 'gate', manifest: 'm.yml' }, 'input "phase" is required for command gate'],
  [{ command: 'advance', manifest: 'm.yml', stage: 'full' }, 'input "stage" needs a phase'],
  [{ command: 'advance', manifest: 'm.yml', 'retry-failed': 'yes' }, 'input "retry-failed" is not true or false'],
  [{ command: 'advance', manifest: 'm.yml', handover: 'later' }, 'input "handover" is not dispatch or none'],
  [{ command: 'advance', manifest: 'm.yml', park: 'soon' }, 'input "park" "soon" is not a duration'],
  // A workflow by its file name alone: no path can name a file outside .github/workflows.
  [
    { command: 'advance', manifest: 'm.yml', 'resume-workflow': '../../x.yml' },
    'input "resume-workflow" is not the file name of a workflow',
  ],
  [
    { command: 'advance', manifest: 'm.yml', resume: 'true', 'campaign-workflow': 'campaign x.yml' },
    'input "campaign-workflow" is not the file name of a workflow',
  ],
  [
    { command: 'advance', manifest: 'm.yml', 'campaign-workflow': 'campaign-x.yml' },
    'input "campaign-workflow" names the workflow a resume starts again',
  ],
  [{ command: 'advance', manifest: 'm.yml', resume: 'true', phase: 'a' }, 'input "resume" drives what parked'],
])('%o is refused: %s', (inputs, message) => {
  let error: unknown;
  try {
    readMainSettings(reader(inputs));
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(UserError);
  expect((error as UserError).message).toContain(message);
  expect((error as UserError).problems[0]!.fix).toMatch(/with: /);
});
