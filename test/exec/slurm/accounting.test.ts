/**
 * Reading Slurm's records in the shapes Slurm 22.05 prints them (the lines below are as the
 * test cluster printed them): array ranges, signals, the queue filling accounting's lag.
 */
import { describe, expect, it } from 'vitest';
import {
  classify,
  expandJobId,
  explainReason,
  mergeRecords,
  neverStarts,
  parseSacct,
  parseSqueue,
  shortfalls,
  withQueueEnds,
} from '../../../src/exec/slurm/accounting.js';

describe('Slurm records', () => {
  it('expands array job ids, ranges and throttles included, and skips anything else', () => {
    expect(expandJobId('97_2')).toEqual(['97_2']);
    expect(expandJobId('38_[519-521%2]')).toEqual(['38_519', '38_520', '38_521']);
    expect(expandJobId('38_[1,4-5]')).toEqual(['38_1', '38_4', '38_5']);
    expect(expandJobId('38')).toEqual([]);
    expect(expandJobId('38.batch')).toEqual([]);
  });

  it("keeps the campaign's jobs only, with exit codes, signals, times and nodes", () => {
    const text = [
      '97_0|idem~4cd5|COMPLETED|0:0|1796022874|1796022875|vm|None',
      '101_5|idem~4cd5|FAILED|97:0|1796022880|1796022880|vm|None',
      '102_0|idem~4cd5|CANCELLED by 0|0:15|1796022880|1796022890|vm|None',
      '103_[0-1%2]|idem~4cd5|PENDING|0:0|Unknown|Unknown|None assigned|JobArrayTaskLimit',
      '104_0|other~1|COMPLETED|0:0|1|2|vm|None',
    ].join('\n');
    const records = parseSacct(text, 'idem~');
    expect(records.map((r) => r.handle)).toEqual(['97_0', '101_5', '102_0', '103_0', '103_1']);
    expect(records[0]).toMatchObject({
      state: 'COMPLETED',
      exitCode: 0,
      start: 1796022874,
      end: 1796022875,
      node: 'vm',
    });
    expect(records[1]?.exitCode).toBe(97);
    expect(records[2]).toMatchObject({ state: 'CANCELLED', exitCode: 128 + 15 });
    expect(records[3]).toMatchObject({ state: 'PENDING', reason: 'JobArrayTaskLimit' });
    expect(records[3]?.node).toBeUndefined();
  });

  it('prefers accounting for ended tasks and the queue for pending ones, and marks queue-only records', () => {
    const acct = parseSacct(
      '5_[0-1]|c~k|PENDING|0:0|Unknown|Unknown|None assigned|Priority\n5_2|c~k|COMPLETED|0:0|10|11|vm|None',
      'c~',
    );
    const queue = parseSqueue(
      '5_0@c~k@PENDING@Resources@@1700000900\n5_1@c~k@RUNNING@None@vm@1700000100\n5_3@c~k@COMPLETED@None@vm@1700000050',
      'c~',
    );
    const merged = mergeRecords(acct, queue);
    expect(merged.get('5_0')).toMatchObject({ state: 'PENDING', reason: 'Resources', queueOnly: true });
    // A pending task's start is a forecast; a running or ended one's is when it began.
    expect(merged.get('5_0')?.start).toBeUndefined();
    expect(merged.get('5_1')).toMatchObject({ state: 'RUNNING', queueOnly: true, start: 1700000100 });
    expect(merged.get('5_3')?.start).toBe(1700000050);
    expect(merged.get('5_2')).toMatchObject({ state: 'COMPLETED', exitCode: 0 });
    expect(merged.get('5_2')?.queueOnly).toBeUndefined();
    expect(merged.get('5_3')?.queueOnly).toBe(true);
  });

  it("takes the queue's ends over accounting's lag, keeping what accounting has of the runs", () => {
    const acct = new Map(
      parseSacct(
        [
          '6_0|c~k|RUNNING|0:0|100|Unknown|vm|None|00:05:00|debug|billing=1,cpu=1,gres/gpu=2|billing=1,cpu=1,gres/gpu=1',
          '6_1|c~k|RUNNING|0:0|100|Unknown|vm|None|00:05:00|debug||',
          '6_2|c~k|COMPLETED|0:0|100|103|vm|None|00:05:00|debug||',
        ].join('\n'),
        'c~',
      ).map((r) => [r.handle, r]),
    );
    // 6_1 still completing in the queue; 6_3 not in accounting yet; 6_2's record is final.
    const queue = parseSqueue(
      '6_0@c~k@OUT_OF_MEMORY@None@vm@100@104\n6_1@c~k@COMPLETING@None@vm@100@400\n6_2@c~k@FAILED@None@vm@100@103\n6_3@c~k@COMPLETED@None@vm@101@102@4:00@short',
      'c~',
    );
    const merged = withQueueEnds(acct, queue);
    expect(merged.get('6_0')).toEqual({
      handle: '6_0',
      name: 'c~k',
      state: 'OUT_OF_MEMORY',
      start: 100,
      end: 104,
      node: 'vm',
      timelimit: 300,
      partition: 'debug',
      reqGpus: 2,
      allocGpus: 1,
    });
    // A task still active in the queue: its %e is when its limit runs out, not an end.
    expect(merged.get('6_1')).toMatchObject({ state: 'RUNNING', exitCode: 0 });
    expect(merged.get('6_1')?.end).toBeUndefined();
    expect(merged.get('6_2')).toMatchObject({ state: 'COMPLETED', end: 103 });
    // Accounting has nothing of 6_3: the queue's record stands, no longer marked queue-only.
    expect(merged.get('6_3')).toEqual({
      handle: '6_3',
      name: 'c~k',
      state: 'COMPLETED',
      node: 'vm',
      start: 101,
      end: 102,
      timelimit: 240,
      partition: 'short',
    });
    // The queue's limit and partition say where a task judged by it alone was given less.
    expect(shortfalls(merged.get('6_3')!, { seconds: 300, partition: 'debug' })).toEqual([
      { of: 'time', asked: '5m', granted: '4m', words: 'a time limit of 4m instead of 5m' },
      { of: 'partition', asked: 'debug', granted: 'short', words: 'partition short instead of debug' },
    ]);
    expect(parseSqueue('7_0@c~k@RUNNING@None@vm@100@999@UNLIMITED@debug', 'c~')[0]?.timelimit).toBeUndefined();
  });

  it("classifies states as DESIGN.md's executor table says; PREEMPTED has ended (the jobs are --no-requeue)", () => {
    const cls = (state: string) => classify({ handle: '1_0', name: 'c~k', state });
    expect(cls('PENDING')).toEqual({ active: true, running: false });
    expect(cls('RUNNING')).toEqual({ active: true, running: true });
    expect(cls('REQUEUED')).toMatchObject({ active: true });
    expect(cls('PREEMPTED')).toMatchObject({ active: false, cls: 'preempted' });
    expect(cls('COMPLETED')).toMatchObject({ active: false, cls: 'completed' });
    expect(cls('OUT_OF_MEMORY')).toMatchObject({ cls: 'out_of_memory' });
    expect(cls('TIMEOUT')).toMatchObject({ cls: 'timeout' });
    expect(cls('NODE_FAIL')).toMatchObject({ cls: 'node_fail' });
    expect(cls('BOOT_FAIL')).toMatchObject({ cls: 'node_fail' });
    expect(cls('CANCELLED')).toMatchObject({ cls: 'cancelled' });
    expect(cls('DEADLINE')).toMatchObject({ cls: 'cancelled', reason: 'passed its deadline' });
    expect(cls('FAILED')).toMatchObject({ cls: 'failed' });
  });

  it('tells the pending reasons Slurm waits with for ever from those that pass', () => {
    for (const r of ['PartitionTimeLimit', 'InvalidQOS', 'QOSMaxWallDurationPerJobLimit', 'AssocMaxCpuPerJobLimit'])
      expect(neverStarts(r), r).toBe(true);
    for (const r of [
      'Resources',
      'Priority',
      'JobArrayTaskLimit',
      'QOSMaxJobsPerUserLimit',
      'ReqNodeNotAvail',
      undefined,
    ])
      expect(neverStarts(r), r).toBe(false);
  });

  it('explains pending reasons in plain words', () => {
    expect(explainReason('Resources')).toBe('waiting for resources to free up');
    expect(explainReason('DependencyNeverSatisfied')).toBe('its dependency can never be satisfied');
    expect(explainReason('PartitionTimeLimit')).toBe('asks for more time than the partition allows');
    expect(explainReason('SomethingNew')).toBe('pending: SomethingNew');
    expect(explainReason(undefined)).toBeUndefined();
  });
});
