/** The summary's pictures: file name, caption, and the SVG text, from the plan and the state. */
import type { Plan } from '../plan/plan.js';
import type { CampaignState } from '../state/state.js';
import { phasesSvg } from './svg/phases.js';
import { runtimesSvg } from './svg/runtimes.js';
import { timelineSvg } from './svg/timeline.js';

export interface Picture {
  file: string;
  caption: string;
  svg: string;
}

export function pictures(plan: Plan, state: CampaignState): Picture[] {
  return [
    { file: 'timeline.svg', caption: 'Timeline: every attempt by phase and stratum', svg: timelineSvg(plan, state) },
    { file: 'runtimes.svg', caption: 'Run time against walltime, per stratum', svg: runtimesSvg(plan, state) },
    { file: 'phases.svg', caption: 'Phases and their state', svg: phasesSvg(plan, state) },
  ];
}
