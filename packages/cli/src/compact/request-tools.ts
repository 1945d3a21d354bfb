/**
 * What `compact` reads from and adds to the request body around its messages: the memory tool
 * the output may refer to, and the output limit the body asks for.
 */
import type { OffloadStore } from '@ctxmem/core';
import type { CliDependencies, ConversationFormat } from '../dependencies.js';
import type { CompactCommandOptions } from './compact-arguments.js';
import { toolForBody, toolName } from './memory-tool-definitions.js';

/** The output a body asks for, and the window of the body's model when it is known. */
export interface OutputTokens {
  field: string;
  tokens: number;
  contextWindow?: number;
}

/**
 * The `reload_context` definition in the body's own format, when the output may need it: tools
 * are on, the body has an envelope to hold them (or is a bare array, which gets a note instead),
 * its `tools` is an array, and it does not define the tool already.
 */
export function memoryToolToAdd(
  options: CompactCommandOptions,
  input: { format: ConversationFormat; envelope: Record<string, unknown> | undefined },
  tools: readonly unknown[],
  offloadStore: OffloadStore,
  dependencies: CliDependencies,
): { name: string; body: Record<string, unknown> | undefined; why?: string } | undefined {
  if (!options.tools) return undefined;
  const tool = dependencies.reloadContextTool(offloadStore);
  if (input.envelope === undefined) {
    return { name: tool.name, body: undefined, why: 'a bare messages array has no tools field' };
  }
  if (input.envelope.tools !== undefined && !Array.isArray(input.envelope.tools)) {
    return { name: tool.name, body: undefined, why: 'the body\'s "tools" is not an array' };
  }
  if (tools.some((existing) => toolName(existing) === tool.name)) return undefined;
  return { name: tool.name, body: toolForBody(tool, input.format) };
}

/** The output limit fields of Responses, Chat Completions and Anthropic bodies, in that order. */
const OUTPUT_TOKEN_FIELDS = ['max_output_tokens', 'max_completion_tokens', 'max_tokens'] as const;

/** The output the body asks for, and the body model's window when it is known. */
export function outputTokensOf(
  envelope: Record<string, unknown> | undefined,
  bodyModel: string | undefined,
  dependencies: Pick<CliDependencies, 'resolveContextWindow'>,
): OutputTokens | undefined {
  const field = OUTPUT_TOKEN_FIELDS.find((name) => {
    const value = envelope?.[name];
    return typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
  });
  if (field === undefined) return undefined;
  const contextWindow =
    bodyModel === undefined ? undefined : dependencies.resolveContextWindow(bodyModel);
  return {
    field,
    tokens: envelope![field] as number,
    ...(contextWindow !== undefined ? { contextWindow } : {}),
  };
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
