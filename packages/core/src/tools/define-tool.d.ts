import { z } from 'zod';
import type { ToolDefinition, ToolExecutionContext } from '../contracts/index.js';
/** Builds a `ToolDefinition` whose JSON schema and input parsing both come from one zod schema. */
export declare function defineTool<Schema extends z.ZodType, Output>({
  name,
  description,
  schema,
  execute,
}: {
  name: string;
  description: string;
  schema: Schema;
  execute: (input: z.output<Schema>, context: ToolExecutionContext) => Promise<Output>;
}): ToolDefinition<z.output<Schema>, Output>;
//# sourceMappingURL=define-tool.d.ts.map
