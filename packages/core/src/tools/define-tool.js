import { z } from 'zod';
import { InvalidArgumentError } from '../errors/index.js';
/** Builds a `ToolDefinition` whose JSON schema and input parsing both come from one zod schema. */
export function defineTool({ name, description, schema, execute }) {
  const inputSchema = z.toJSONSchema(schema, { target: 'draft-7' });
  delete inputSchema.$schema;
  return {
    name,
    description,
    inputSchema,
    parseInput(input) {
      const parsed = schema.safeParse(input);
      if (!parsed.success) {
        throw new InvalidArgumentError({
          message: `Invalid input for tool ${name}: ${z.prettifyError(parsed.error)}`,
          argument: name,
          cause: parsed.error,
        });
      }
      return parsed.data;
    },
    execute,
  };
}
//# sourceMappingURL=define-tool.js.map
