/** Every lint rule, in the order they run (the runner groups them by what they need). */
import type { Rule, WorkflowRule } from '../rule.js';
import { commaList } from './comma-list.js';
import { dependencyCycle } from './dependency-cycle.js';
import { duplicatePhase } from './duplicate-phase.js';
import { duplicateValue } from './duplicate-value.js';
import { emptyAxis } from './empty-axis.js';
import { excludeMatchesNothing } from './exclude-matches-nothing.js';
import { flushNotFiner } from './flush-not-finer.js';
import { fullRunOverridden } from './full-run-overridden.js';
import { gpusBeyondServer } from './gpus-beyond-server.js';
import { gridTooLarge } from './grid-too-large.js';
import { includeCell } from './include-cell.js';
import { mixedResourceClass } from './mixed-resource-class.js';
import { noSmokeTrigger } from './no-smoke-trigger.js';
import { oneWalltimeForStrata } from './one-walltime-for-strata.js';
import { outputCollision } from './output-collision.js';
import { outputOutsideWorkdir } from './output-outside-workdir.js';
import { patternNestedQuantifier } from './pattern-nested-quantifier.js';
import { rateElsewhere } from './rate-elsewhere.js';
import { reservedAxis } from './reserved-axis.js';
import { shellAntipattern } from './shell-antipattern.js';
import { smokeOneTaskCollision } from './smoke-one-task-collision.js';
import { smokeUnitsUnused } from './smoke-units-unused.js';
import { tagCollision } from './tag-collision.js';
import { tagTooLong } from './tag-too-long.js';
import { unknownAxis } from './unknown-axis.js';
import { unknownDependency } from './unknown-dependency.js';
import { unknownVariable } from './unknown-variable.js';
import { valueBecomesCode } from './value-becomes-code.js';
import { valueNotCarried } from './value-not-carried.js';
import { walltimeBudget } from './walltime-budget.js';
import { walltimeNotMeasured } from './walltime-not-measured.js';
import { zipAxes } from './zip-axes.js';
import { slurmOptionElsewhere } from './slurm-option-elsewhere.js';
import { shellOnAutomationNode } from './shell-on-automation-node.js';
import { resultsBestUnknown } from './results-best-unknown.js';
import { resultsMetricNotRecorded } from './results-metric-not-recorded.js';
import { resultsReplicatesNotAxis } from './results-replicates-not-axis.js';
import { localOutputsLost } from './local-outputs-lost.js';
import { checkpointBeforeWalltime } from './checkpoint-before-walltime.js';
import { poolWithLogin } from './pool-with-login.js';
import { codeWithoutTransfer } from './code-without-transfer.js';
import { codeNotDeclared } from './code-not-declared.js';
import { maxParallelOverMaxJobs } from './max-parallel-over-max-jobs.js';
import { packWithoutElements } from './pack-without-elements.js';
import { packBudget } from './pack-budget.js';
import { packNotRunHere } from './pack-not-run-here.js';
import { packParallelBeyondElement } from './pack-parallel-beyond-element.js';
import { packSmokeHidesCollision } from './pack-smoke-hides-collision.js';

export const RULES: readonly Rule[] = [
  // The manifest itself: phases and their dependencies, then grids, then names used in them.
  duplicatePhase,
  unknownDependency,
  dependencyCycle,
  zipAxes,
  emptyAxis,
  duplicateValue,
  includeCell,
  valueNotCarried,
  gridTooLarge,
  reservedAxis,
  unknownAxis,
  unknownVariable,
  valueBecomesCode,
  fullRunOverridden,
  resultsBestUnknown,
  // Method warnings on the manifest: cost model, staging, shell text, flushing.
  commaList,
  excludeMatchesNothing,
  walltimeNotMeasured,
  rateElsewhere,
  oneWalltimeForStrata,
  noSmokeTrigger,
  smokeOneTaskCollision,
  smokeUnitsUnused,
  shellAntipattern,
  patternNestedQuantifier,
  flushNotFiner,
  slurmOptionElsewhere,
  shellOnAutomationNode,
  poolWithLogin,
  codeWithoutTransfer,
  codeNotDeclared,
  maxParallelOverMaxJobs,
  packWithoutElements,
  resultsMetricNotRecorded,
  // Expanded tasks (only when the manifest has no error).
  outputOutsideWorkdir,
  tagCollision,
  tagTooLong,
  outputCollision,
  resultsReplicatesNotAxis,
  // The plan.
  walltimeBudget,
  checkpointBeforeWalltime,
  mixedResourceClass,
  gpusBeyondServer,
  packBudget,
  packNotRunHere,
  packParallelBeyondElement,
  packSmokeHidesCollision,
];

export const WORKFLOW_RULES: readonly WorkflowRule[] = [localOutputsLost];
