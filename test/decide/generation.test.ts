/**
 * The campaign's generation as the workdir records it (decide/generation.ts): what a controller
 * does with the one recorded, given the one its state follows.
 */
import { describe, expect, it } from 'vitest';
import { generationPath, generationStep, parseGeneration, renderGeneration } from '../../src/decide/generation.js';

const CREATED = '2026-12-01T10:00:00.000Z';
const OTHER = '2026-12-02T11:00:00.000Z';

describe('the generation a controller follows', () => {
  it('records its own where none is: a legacy state its creation (its jobs are keyed by it), a new one too', () => {
    expect(generationStep(undefined, CREATED, undefined)).toEqual({ do: 'record', generation: CREATED });
    expect(generationStep(OTHER, CREATED, undefined)).toEqual({ do: 'record', generation: OTHER });
  });

  it('follows the one recorded: adopted by a state that followed none, kept by one that followed it', () => {
    expect(generationStep(undefined, CREATED, OTHER)).toEqual({ do: 'follow', generation: OTHER });
    expect(generationStep(OTHER, CREATED, OTHER)).toEqual({ do: 'follow', generation: OTHER });
  });

  it('is stale where another controller started the campaign afresh', () => {
    expect(generationStep(CREATED, CREATED, OTHER)).toEqual({ do: 'stale', recorded: OTHER });
  });

  it('is read back as written, from the file in the executor’s directory of the campaign', () => {
    expect(parseGeneration(renderGeneration(OTHER))).toBe(OTHER);
    expect(parseGeneration(`  ${OTHER}  \nmore\n`)).toBe(OTHER);
    expect(parseGeneration(undefined)).toBeUndefined();
    expect(parseGeneration('\n')).toBeUndefined();
    expect(generationPath('slurm', 'c')).toBe('.campaign/slurm/c/generation');
  });
});
