/**
 * The Slurm executor's commands on a login with a shell: each question one bash command
 * (sacct and squeue of a pass together, the markers of every submission in one loop), every
 * submission through the ledger that keeps two controllers from sending one attempt twice
 * (render/submit-once.ts), and accounting as the witness of an ended task (ask-plan.ts).
 */
import { shellQuote } from '../../render/shell.js';
import type { SbatchFiles } from '../../render/sbatch.js';
import { attemptLines, LEDGER, parseSubmitOnce, renderSubmitOnce } from '../../render/submit-once.js';
import type { Submission } from '../../state/events.js';
import { LinkError } from '../transport/transport.js';
import { mergeRecords, parseSacct, parseSqueue, SACCT_FIELDS, SQUEUE_FORMAT } from './accounting.js';
import { ACCOUNTING } from './ask-plan.js';
import {
  SlurmCommands,
  sbatchFailure,
  scontrolOutput,
  type LimitsRead,
  type SchedulerAnswer,
  type SendOutcome,
  type SubmissionPlace,
} from './commands.js';
import { parseMarkers, type TaskMarkers } from './markers.js';
import type { RecordRead } from './record.js';
import { othersQueued, queueCount, queueLines, siteLimit, SUBMIT_LIMIT_COMMAND, type Charge } from './submit-limit.js';
import { parseTestOnly, renderTestOnly, type Refusal, type TestedArray } from './test-only.js';

const SEPARATOR = '--campaign-sacct--';
/**
 * How far back the record of earlier submissions reaches: past any workflow run (35 days) and
 * the default life of a state artifact (90 days), so a state rebuilt from nothing finds them.
 */
const RECORD_LOOKBACK = 'now-100days';

export class ShellCommands extends SlurmCommands {
  readonly witness = ACCOUNTING;
  accountingOk = true;
  /** A failure of accounting has been said this run. */
  private accountingWarned = false;

  async readLimits(charges: readonly Charge[]): Promise<LimitsRead> {
    // The partitions, and beside them in one command the submit limit sacctmgr gives for
    // `charges` and the user's other jobs in the queue.
    const [partitionsRead, r] = await Promise.all([
      this.opts.transport.exec('scontrol show partition -o'),
      this.opts.transport.exec(SUBMIT_LIMIT_COMMAND, { timeoutMs: 30_000 }),
    ]);
    const partitions = scontrolOutput(partitionsRead);
    const { own, others } = queueCount(queueLines(r.stdout), this.prefix, false);
    this.others = others;
    return { partitions, site: { ...siteLimit(r.stdout, charges), ownQueued: own } };
  }

  async config(): Promise<string> {
    return scontrolOutput(await this.opts.transport.exec("scontrol show config | grep -i '^MaxArraySize'"));
  }

  async testOnly(tested: readonly TestedArray[]): Promise<Refusal[]> {
    const r = await this.opts.transport.exec(renderTestOnly(tested), { timeoutMs: 30_000 + 5_000 * tested.length });
    return parseTestOnly(tested, `${r.stdout}\n${r.stderr}`);
  }

  async recount(): Promise<{ own: number; others: number }> {
    const r = await this.opts.transport.exec(`squeue -h -r -u "$(id -un)" -o ${shellQuote('%j@%T')}`);
    if (r.code !== 0) throw new LinkError(`squeue failed on the cluster: ${r.stderr.trim() || `exit ${r.code}`}`);
    const count = queueCount(r.stdout.split('\n'), this.prefix, false);
    this.others = count.others;
    return count;
  }

  /**
   * In one command: the ledger's size, the campaign's jobs accounting and the queue know (by
   * the names the task tables' keys give) with their ids, and the task tables under `root`.
   */
  async readRecord(root: string): Promise<RecordRead | undefined> {
    const r = await this.opts.transport.exec(
      [
        `cd -- ${shellQuote(root)} 2>/dev/null || exit 0`,
        // What the ledger holds now is on record below: a later submission reads past it.
        `printf '== ledger %s\\n' "$(stat -c %s -- ${LEDGER} 2>/dev/null || echo 0)"`,
        'export SLURM_TIME_FORMAT=%s',
        'user=$(id -un)',
        `names=; for d in */; do if [ -f "$d/table.tsv" ]; then names="$names,"${shellQuote(this.prefix)}"\${d%/}"; fi; done`,
        '[ -n "$names" ] || exit 0',
        `sacct -X -n -P -u "$user" -S ${RECORD_LOOKBACK} -E now --name="\${names#,}" -o JobID,JobName,Submit || exit 4`,
        `squeue -h -t all -u "$user" --name="\${names#,}" -o '%i|%j|%V' || exit 4`,
        `for d in */; do if [ -f "$d/table.tsv" ]; then printf '== %s\\n' "\${d%/}"; cat -- "$d/table.tsv"; fi; done`,
      ].join('\n'),
    );
    if (r.code !== 0) {
      this.opts.warn(`cannot read the record of earlier submissions (${r.stderr.trim() || `exit ${r.code}`})`);
      return undefined;
    }
    const read: RecordRead = { jobs: new Map(), sections: [] };
    for (const line of r.stdout.split('\n')) {
      const ledger = /^== ledger (\d+)$/.exec(line);
      if (ledger) {
        read.ledgerFrom = Number(ledger[1]);
        continue;
      }
      if (line.startsWith('== ')) {
        read.sections.push({ key: line.slice(3), lines: [] });
        continue;
      }
      const section = read.sections.at(-1);
      if (section) {
        section.lines.push(line);
        continue;
      }
      const [id = '', name = '', submit = ''] = line.split('|');
      if (!name.startsWith(this.prefix) || !/^\d+/.test(id)) continue;
      read.jobs.set(name.slice(this.prefix.length), id.split('_')[0]!);
      if (/^\d+$/.test(submit)) read.earliest = Math.min(read.earliest ?? Infinity, Number(submit));
    }
    return read;
  }

  async readMarkers(root: string, keys: readonly string[]): Promise<Map<string, TaskMarkers>> {
    if (keys.length === 0) return new Map();
    const dirs = keys.map((k) => shellQuote(`${root}/${k}/markers`)).join(' ');
    const r = await this.opts.transport.exec(`for d in ${dirs}; do cat -- "$d"/* 2>/dev/null; done; true`);
    return parseMarkers(r.stdout);
  }

  async send(
    group: readonly Submission[],
    key: string,
    files: SbatchFiles,
    place: SubmissionPlace,
    root: string,
  ): Promise<SendOutcome> {
    const record = this.opts.record;
    await this.upload(files, place.dir);
    const r = await this.sbatch(
      this.opts.transport.exec(renderSubmitOnce(root, key, record.ledgerFrom), {
        stdin: attemptLines(group, group[0]!.array.packing?.tasks),
      }),
    );
    const { rows, outcome, upto } = parseSubmitOnce(r.stdout);
    record.adopt(rows, root);
    if (upto !== undefined) record.ledgerFrom = upto;
    if (outcome && 'sent' in outcome) return { jobId: outcome.sent };
    if (outcome && 'taken' in outcome && record.holdsAny(group)) return { taken: true };
    // Held by another controller's submission (or taken, by rows this one cannot read): the next pass looks again.
    if (outcome && !('failed' in outcome))
      return { error: "another controller is sending the campaign's tasks", transient: true };
    return sbatchFailure(r);
  }

  /** Accounting failing is said once, and the ended tasks are judged without it. */
  async ask(queue: boolean, jobs: ReadonlySet<string>): Promise<SchedulerAnswer> {
    const lines: string[] = [];
    if (jobs.size > 0) {
      const from = Math.min(Date.parse(this.opts.since) / 1000, this.opts.record.earliest);
      const back = Math.ceil(Date.parse(this.opts.now()) / 1000 - from) + 3600;
      lines.push(
        `SLURM_TIME_FORMAT=%s sacct -X -n -P -j ${[...jobs].join(',')} -S now-${back} -E now --format=${SACCT_FIELDS} 2>&1`,
        `printf '\\n%s %s\\n' ${SEPARATOR} "$?"`,
      );
    }
    if (queue)
      lines.push(
        'user=$(id -un)',
        `SLURM_TIME_FORMAT=%s squeue -h -r -t all -u "$user" -o ${shellQuote(SQUEUE_FORMAT)}`,
      );
    const r = await this.opts.transport.exec(lines.join('; '));
    let acct = '';
    let rest = r.stdout;
    let acctOk = true;
    if (jobs.size > 0) {
      [acct = '', rest = ''] = r.stdout.split(`\n${SEPARATOR} `);
      acctOk = rest.startsWith('0');
      rest = rest.slice(rest.indexOf('\n') + 1);
    }
    if (queue && r.code !== 0) throw new LinkError(`squeue failed on the cluster: ${r.stderr.trim() || rest.trim()}`);
    if (!acctOk && !this.accountingWarned) {
      this.accountingWarned = true;
      this.opts.warn(
        `sacct failed (${acct.trim().split('\n')[0]}): watching the queue only; ended tasks are judged by their outputs`,
      );
    }
    if (jobs.size > 0) this.accountingOk = acctOk;
    const queued = queue ? parseSqueue(rest, this.prefix) : [];
    if (queue) this.others = othersQueued(rest.split('\n'), this.prefix, true);
    this.opts.record.remember(queued);
    return { records: mergeRecords(acctOk ? parseSacct(acct, this.prefix) : [], queued), acctOk };
  }
}
