import type { TokenCounter } from '../contracts/index.js';
import { InvalidArgumentError } from '../errors/index.js';

/**
 * Tokens every tool definition costs beyond its JSON: the wrapper providers put around it
 * (`{"type":"function","function":{…}}`, `strict`) and the separators between tools.
 */
export const TOOL_DEFINITION_OVERHEAD = 10;

/**
 * Counts tool definitions as a request carries them: each tool's JSON, exactly as given (an AI SDK
 * `{ type, name, description, inputSchema }`, an OpenAI `{ type: 'function', function }`, an
 * Anthropic `{ name, description, input_schema }`), plus `TOOL_DEFINITION_OVERHEAD`. Providers
 * turn definitions into their own, usually shorter, internal form, so the JSON is an upper bound
 * of what the tools cost. Functions and symbols in a definition are not counted (they are not
 * sent). Throws `InvalidArgumentError` naming `tools[i]` for a definition JSON cannot hold (a
 * cycle, a BigInt).
 */
export function countToolDefinitions(tools: readonly unknown[], counter: TokenCounter): number {
  if (!Array.isArray(tools)) {
    throw new InvalidArgumentError({
      message: `tools must be an array of tool definitions, got ${tools === null ? 'null' : typeof tools}`,
      argument: 'tools',
    });
  }
  let total = 0;
  for (let index = 0; index < tools.length; index++) {
    total += counter.countText(toolJson(tools[index], index)) + TOOL_DEFINITION_OVERHEAD;
  }
  return total;
}

function toolJson(tool: unknown, index: number): string {
  if (typeof tool !== 'object' || tool === null) {
    throw new InvalidArgumentError({
      message: `tools[${index}] must be a tool definition object, got ${tool === null ? 'null' : typeof tool}`,
      argument: `tools[${index}]`,
    });
  }
  let json: string | undefined;
  try {
    // Functions (an `execute`) and symbols are left out, as they are from the request body.
    json = JSON.stringify(tool);
  } catch (error) {
    throw new InvalidArgumentError({
      message: `tools[${index}] is not a JSON tool definition: ${error instanceof Error ? error.message : String(error)}`,
      argument: `tools[${index}]`,
      cause: error,
    });
  }
  return json ?? '';
}
