/** `campaign schema`: the manifest's JSON Schema. */
import { manifestJsonSchema } from '../../manifest/schema.js';
import { EXIT, type Command } from '../command.js';

export const command: Command = {
  synopsis: 'schema',
  help: "the manifest's JSON Schema",
  options: {},
  examples: ['campaign schema > campaign.schema.json'],
  run: async () => {
    process.stdout.write(JSON.stringify(jsonSchema(), null, 2) + '\n');
    return EXIT.ok;
  },
};

export function jsonSchema(): unknown {
  return manifestJsonSchema();
}
