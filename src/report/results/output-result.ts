/**
 * What one output says of its task's result: the records the phase's rule picks, with their
 * metrics, or why there is none. It is what a gathering keeps of an output between runs, so the
 * output is read again only when it changes.
 */
import { z } from 'zod';
import { metricValues, parseRecords, pickRecords, type RecordRule } from './records.js';

export const ResultRecord = z.object({
  /** The record's place in the output (1-based). */
  index: z.number().int(),
  values: z.record(z.string(), z.number()),
  /** Which of the metrics is missing or not a number. */
  problem: z.string().optional(),
});
export type ResultRecord = z.infer<typeof ResultRecord>;

export const OutputResult = z.union([z.object({ records: z.array(ResultRecord) }), z.object({ problem: z.string() })]);
export type OutputResult = z.infer<typeof OutputResult>;

/** The result in an output's text; a problem says what is wrong with the text, not where it is. */
export function outputResult(text: string, rule: RecordRule, metrics: readonly string[]): OutputResult {
  const parsed = parseRecords(text);
  if ('error' in parsed) return { problem: parsed.error };
  const picked = pickRecords(parsed.records, rule);
  if ('error' in picked) return { problem: picked.error };
  return {
    records: picked.picked.map(({ index, record }) => {
      const { values, problems } = metricValues(record, metrics);
      // The last record is named so: an output read only at its ends gives no place to count from.
      const which = rule.kind === 'last' ? 'the last record' : `record ${index}`;
      return { index, values, ...(problems.length > 0 ? { problem: `${which}: ${problems.join(', ')}` } : {}) };
    }),
  };
}
