/** Every key of the manifest explains itself where an editor shows it: the JSON Schema's descriptions. */
import { describe, expect, it } from 'vitest';
import { jsonSchema } from '../../src/cli/main.js';

interface Node {
  description?: string;
  properties?: Record<string, Node>;
  anyOf?: Node[];
  oneOf?: Node[];
  allOf?: Node[];
  items?: Node;
  additionalProperties?: Node | boolean;
}

/** The keys without a description, by their path in the manifest. */
function undescribed(node: Node, path: string): string[] {
  const out: string[] = [];
  for (const [key, child] of Object.entries(node.properties ?? {})) {
    const described = child.description !== undefined || (child.anyOf ?? []).some((c) => c.description !== undefined);
    if (!described) out.push(`${path}.${key}`);
    out.push(...undescribed(child, `${path}.${key}`));
  }
  for (const branch of [...(node.anyOf ?? []), ...(node.oneOf ?? []), ...(node.allOf ?? [])])
    out.push(...undescribed(branch, path));
  if (node.items) out.push(...undescribed(node.items, `${path}[]`));
  if (typeof node.additionalProperties === 'object') out.push(...undescribed(node.additionalProperties, `${path}.*`));
  return out;
}

describe('the manifest schema', () => {
  it('describes every key', () => {
    expect([...new Set(undescribed(jsonSchema() as Node, ''))]).toEqual([]);
  });
});
