import { z } from 'zod';
import type { JsonSchema, ToolDefinition, ToolExecutionContext } from '../contracts/index.js';
import { InvalidArgumentError } from '../errors/index.js';

/** Builds a `ToolDefinition` whose JSON schema and input parsing both come from one zod schema. */
export function defineTool<Schema extends z.ZodType, Output>({
  name,
  description,
  schema,
  execute,
}: {
  name: string;
  description: string;
  schema: Schema;
  execute: (input: z.output<Schema>, context: ToolExecutionContext) => Promise<Output>;
}): ToolDefinition<z.output<Schema>, Output> {
  const inputSchema = z.toJSONSchema(schema, { target: 'draft-7', io: 'input' }) as JsonSchema;
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
