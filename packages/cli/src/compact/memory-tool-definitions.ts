import type { ConversationFormat, ToolDefinition } from '@ctxmem/core';

/** A tool definition as a request body of `format` carries it. */
export function toolForBody(
  tool: Pick<ToolDefinition, 'name' | 'description' | 'inputSchema'>,
  format: ConversationFormat,
): Record<string, unknown> {
  const { name, description, inputSchema } = tool;
  if (format === 'openai-chat') {
    return { type: 'function', function: { name, description, parameters: inputSchema } };
  }
  if (format === 'anthropic') return { name, description, input_schema: inputSchema };
  // Responses function tools are flat; `strict: false` accepts the schema as it is.
  if (format === 'openai-responses') {
    return { type: 'function', name, description, parameters: inputSchema, strict: false };
  }
  // The AI SDK's function tool (LanguageModelV2FunctionTool).
  return { type: 'function', name, description, inputSchema };
}

/** The name of a tool definition in any of the three shapes, or `undefined`. */
export function toolName(tool: unknown): string | undefined {
  if (typeof tool !== 'object' || tool === null) return undefined;
  const { name, function: definition } = tool as { name?: unknown; function?: { name?: unknown } };
  if (typeof name === 'string') return name;
  return typeof definition?.name === 'string' ? definition.name : undefined;
}

/** Whether `text` asks the model to call `name`, as the previews do: `reload_context("off_…")`. */
export function mentionsTool(text: string, name: string): boolean {
  return text.includes(`${name}(`);
}
