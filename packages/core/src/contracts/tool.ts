import type { Scope } from './scope.js';

/** A JSON schema object, as providers expect for tool parameters. */
export type JsonSchema = Record<string, unknown>;

export interface ToolExecutionContext {
  scope: Scope;
  abortSignal?: AbortSignal;
}

/** A framework-neutral tool: adapters wrap it as an AI SDK or LangChain tool. */
export interface ToolDefinition<Input = unknown, Output = unknown> {
  name: string;
  description: string;
  /** JSON schema of the input. */
  inputSchema: JsonSchema;
  /** Validates and parses raw input; throws `InvalidArgumentError` on bad input. */
  parseInput(input: unknown): Input;
  execute(input: Input, context: ToolExecutionContext): Promise<Output>;
}
