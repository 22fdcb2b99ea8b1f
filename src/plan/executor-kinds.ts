/**
 * What the core knows of each executor kind, in one table keyed by `cluster.executor`: the
 * mapped type makes a kind the schema gains and this table lacks a compile error. How a kind
 * is opened is the adapters' table (src/app/executors.ts), checked the same way.
 */
import type { Cluster } from '../manifest/schema.js';
import { parseDuration } from '../manifest/units.js';

export type ExecutorKind = Cluster['executor'];
export type ClusterOf<K extends ExecutorKind> = Extract<Cluster, { executor: K }>;

export interface KindTraits<C extends Cluster> {
  /** The largest array one submission takes. */
  maxArraySize(cluster: C): number;
  /** GPUs a task asks when the manifest says nothing. */
  defaultGpus: number;
  /**
   * Seconds between passes, shortest and longest: local processes are looked at often, a
   * server over SSH less often (each look is a round trip). A Slurm pass reads the tasks'
   * markers and asks the scheduler only at its own, slower pace, so its shortest is a second.
   */
  pollSeconds: [number, number];
  /** Whether each look costs a scheduler RPCs, so that the pacer waits for expected ends. */
  costlyPolls: boolean;
  /**
   * Whether an array goes to a scheduler as one batch script over its task table, whose
   * submitted tasks wait in its queue until they start (and can be taken out of it while the
   * disk is full). Elsewhere each task runs its own script the moment it is sent.
   */
  queues: boolean;
  /** Whether campaign picks each task's GPUs itself and hands them to its script: no scheduler does. */
  placesGpus: boolean;
  /** The partitions' time limits a walltime must fit under, shortest first; none where there are no partitions. */
  partitionCaps(cluster: C): PartitionCap[];
  /**
   * Whether a phase's `pack` means something: the kind submits array elements, each of which
   * can run several tasks. Elsewhere every task is its own process or session already.
   */
  packs: boolean;
}

export interface PartitionCap {
  name: string;
  maxSeconds: number;
}

const noPartitions = (): PartitionCap[] => [];

export const EXECUTOR_KINDS: { [K in ExecutorKind]: KindTraits<ClusterOf<K>> } = {
  local: {
    maxArraySize: () => Number.MAX_SAFE_INTEGER,
    defaultGpus: 0,
    pollSeconds: [0.1, 2],
    costlyPolls: false,
    queues: false,
    placesGpus: false,
    partitionCaps: noPartitions,
    packs: false,
  },
  slurm: {
    maxArraySize: (cluster) => cluster.max_array_size ?? 1000,
    defaultGpus: 0,
    pollSeconds: [1, 30],
    costlyPolls: true,
    queues: true,
    placesGpus: false,
    partitionCaps: (cluster) =>
      (cluster.partitions ?? [])
        .map((p) => ({ name: p.name, maxSeconds: parseDuration(p.max_time)! }))
        .sort((a, b) => a.maxSeconds - b.maxSeconds),
    packs: true,
  },
  'ssh-gpu': {
    maxArraySize: () => Number.MAX_SAFE_INTEGER,
    defaultGpus: 1,
    pollSeconds: [2, 30],
    costlyPolls: false,
    queues: false,
    placesGpus: true,
    partitionCaps: noPartitions,
    packs: false,
  },
};

/** The traits of a cluster's kind, typed for it. */
export function traitsOf<C extends Cluster>(cluster: C): KindTraits<C> {
  return EXECUTOR_KINDS[cluster.executor] as unknown as KindTraits<C>;
}
