import { z } from 'zod';
import type { JsonSchema, ToolDefinition, ToolExecutionContext } from '../contracts/index.js';
import { InvalidArgumentError } from '../errors/index.js';
import { requireOptions } from '../validation/index.js';

/**
 * A `ToolDefinition` made by `defineTool`. It keeps the zod schema that its JSON schema and
 * `parseInput` come from, for adapters whose SDK takes zod schemas (the MCP server), so those
 * advertise and check exactly what core does.
 */
export interface SchemaToolDefinition<Input = unknown, Output = unknown>
  extends ToolDefinition<Input, Output> {
  /** The input's zod object schema: `inputSchema` is its JSON schema, `parseInput` parses with it. */
  zodInputSchema: z.ZodObject;
}

/** Builds a `ToolDefinition` whose JSON schema and input parsing both come from one zod schema. */
export function defineTool<Schema extends z.ZodObject, Output>(options: {
  name: string;
  description: string;
  schema: Schema;
  execute: (input: z.output<Schema>, context: ToolExecutionContext) => Promise<Output>;
}): SchemaToolDefinition<z.output<Schema>, Output> {
  const { name, description, schema, execute } = requireOptions(options, 'defineTool', {
    name: { expected: 'the tool name, a string', type: 'string' },
    description: { expected: 'what the tool does, a string', type: 'string' },
    schema: { expected: 'a zod object schema' },
    execute: { expected: 'the function that runs the tool', type: 'function' },
  });
  const inputSchema = z.toJSONSchema(schema, { target: 'draft-7', io: 'input' }) as JsonSchema;
  delete inputSchema.$schema;
  return {
    name,
    description,
    inputSchema,
    zodInputSchema: schema,
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
