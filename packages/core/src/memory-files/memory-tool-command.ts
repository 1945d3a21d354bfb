/**
 * The input of Anthropic's memory tool (`memory_20250818`): six commands, as its documentation
 * lists them (https://platform.claude.com/docs/en/agents-and-tools/tool-use/memory-tool, "Tool
 * commands") and `@ai-sdk/anthropic` (`src/tool/memory_20250818.ts`) and `@langchain/anthropic`
 * (`src/tools/types.ts`) type them. `new_str` may be left out (the documentation: "when it's
 * omitted, `old_str` is deleted"); `view_range` is optional.
 */
import { z } from 'zod';
import { lazy } from '../cache/index.js';
import type { JsonSchema } from '../contracts/index.js';
import { InvalidArgumentError } from '../errors/index.js';

export type MemoryToolCommand =
  | { command: 'view'; path: string; view_range?: [number, number] }
  | { command: 'create'; path: string; file_text: string }
  | { command: 'str_replace'; path: string; old_str: string; new_str?: string }
  | { command: 'insert'; path: string; insert_line: number; insert_text: string }
  | { command: 'delete'; path: string }
  | { command: 'rename'; old_path: string; new_path: string };

export type MemoryToolCommandName = MemoryToolCommand['command'];

const COMMANDS = ['view', 'create', 'str_replace', 'insert', 'delete', 'rename'] as const;

/** The fields each command needs besides `command`. */
const REQUIRED: Readonly<Record<MemoryToolCommandName, readonly string[]>> = {
  view: ['path'],
  create: ['path', 'file_text'],
  str_replace: ['path', 'old_str'],
  insert: ['path', 'insert_line', 'insert_text'],
  delete: ['path'],
  rename: ['old_path', 'new_path'],
};

/**
 * One flat object rather than a union of six: a function tool's parameters must be an object
 * schema for most providers (and for MCP), so a model that does not know the tool natively is
 * given this one; which fields a command needs is checked after. Built on first use: it is
 * milliseconds of work that importers of core who never use the memory tool would pay.
 */
const commandSchema = lazy(() =>
  z.object({
    command: z.enum(COMMANDS).describe('What to do.'),
    path: z
      .string()
      .optional()
      .describe(
        'view, create, str_replace, insert, delete: a path under /memories, such as /memories/notes.md.',
      ),
    // An array of two rather than a tuple: tuple schemas (`items` as a list) are refused by some
    // providers' function-calling validators.
    view_range: z
      .array(z.number())
      .length(2)
      .optional()
      .describe('view of a file: [first_line, last_line], 1-based; last_line -1 reads to the end.'),
    file_text: z.string().optional().describe('create: the text of the new file.'),
    old_str: z
      .string()
      .optional()
      .describe('str_replace: text that occurs exactly once in the file.'),
    new_str: z
      .string()
      .optional()
      .describe('str_replace: the text that replaces old_str; leave out to delete old_str.'),
    insert_line: z
      .number()
      .optional()
      .describe('insert: the line after which to insert; 0 inserts at the beginning.'),
    insert_text: z.string().optional().describe('insert: the text to insert.'),
    old_path: z.string().optional().describe('rename: the file or directory to rename or move.'),
    new_path: z.string().optional().describe('rename: its new path.'),
  }),
);

/** The JSON schema of the tool's input, for models that do not know the memory tool natively. */
export function memoryToolInputSchema(): JsonSchema {
  const schema = z.toJSONSchema(commandSchema(), { target: 'draft-7', io: 'input' }) as JsonSchema;
  delete schema.$schema;
  return schema;
}

/**
 * Checks a command of the memory tool and returns it with only its own fields. Throws
 * `InvalidArgumentError` naming what is missing or wrong; paths, numbers and texts are checked
 * further by the command itself.
 */
export function parseMemoryToolCommand(input: unknown): MemoryToolCommand {
  const parsed = commandSchema().safeParse(input);
  if (!parsed.success) {
    const command = (input as { command?: unknown } | null)?.command;
    if (typeof command === 'string' && !(COMMANDS as readonly string[]).includes(command)) {
      throw new InvalidArgumentError({
        message: `Error: Unknown command ${JSON.stringify(command)}; the memory tool's commands are ${COMMANDS.join(', ')}.`,
        argument: 'command',
      });
    }
    throw new InvalidArgumentError({
      message: `Error: Invalid input for the memory tool: ${z.prettifyError(parsed.error)}`,
      argument: String(parsed.error.issues[0]?.path[0] ?? 'input'),
      cause: parsed.error,
    });
  }
  const fields = parsed.data as Record<string, unknown>;
  const command = parsed.data.command;
  const own: Record<string, unknown> = { command };
  for (const field of REQUIRED[command]) {
    if (fields[field] === undefined) {
      throw new InvalidArgumentError({
        message: `Error: Parameter \`${field}\` is required for command: ${command}`,
        argument: field,
      });
    }
    own[field] = fields[field];
  }
  if (command === 'view' && fields.view_range !== undefined) own.view_range = fields.view_range;
  if (command === 'str_replace' && fields.new_str !== undefined) own.new_str = fields.new_str;
  return own as MemoryToolCommand;
}
