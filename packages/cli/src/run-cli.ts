import { readFile } from 'node:fs/promises';
import {
  BudgetExceededError,
  CtxmemError,
  InvalidArgumentError,
  InvalidMessageError,
} from '@ctxmem/core';
import { parseArguments } from './arguments.js';
import { parseCompactArguments, runCompact } from './compact/index.js';
import { type CliDependencies, loadDefaultDependencies } from './dependencies.js';
import { formatNumber } from './format.js';
import {
  COMPACT_HELP,
  INSPECT_HELP,
  MAIN_HELP,
  MCP_HELP,
  MEMORY_HELP,
  RELOAD_HELP,
} from './help.js';
import { parseInspectArguments, runInspect } from './inspect-command.js';
import { parseReloadArguments, runReload } from './reload-command.js';
import { oneLine } from './render-report.js';

/** Where the CLI reads and writes: the process in `bin.ts`, buffers in tests. */
export interface CliContext {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  /** Read when an input argument is `-`. @default none: `-` is then a usage error */
  stdin?: (AsyncIterable<string | Uint8Array> | Iterable<string | Uint8Array>) & {
    isTTY?: boolean;
  };
  /** Relative paths in arguments resolve against this folder. */
  cwd: string;
  /**
   * Read for `OPENAI_API_KEY`, `OPENAI_BASE_URL` and `CTXMEM_DEBUG`; by `ctxmem mcp` also for
   * `CTXMEM_STORE`, `CTXMEM_MCP_TOKEN` and the scope (`CTXMEM_USER_ID`, `CTXMEM_AGENT_ID`,
   * `CTXMEM_SESSION_ID`).
   */
  env: Readonly<Record<string, string | undefined>>;
  /** Used by `--model` to call the API. @default globalThis.fetch */
  fetch?: typeof globalThis.fetch;
  /** Stand-ins for the rest of ctxmem. @default the real implementations, loaded lazily */
  dependencies?: CliDependencies;
  /**
   * `--quiet` (or `-q`), taken out of any command's arguments: no progress and no report on
   * stderr; warnings and errors still print.
   * @default false
   */
  quiet?: boolean;
}

/** The options every command takes; `runCli` removes them before the command parses its own. */
const QUIET_FLAGS = new Set(['--quiet', '-q']);

/** `argv` without `--quiet` / `-q` (up to a `--`, after which everything is an argument). */
function withoutQuiet(argv: readonly string[]): { argv: string[]; quiet: boolean } {
  const end = argv.indexOf('--');
  const head = end === -1 ? argv : argv.slice(0, end);
  const kept = head.filter((argument) => !QUIET_FLAGS.has(argument));
  return {
    argv: end === -1 ? kept : [...kept, ...argv.slice(end)],
    quiet: kept.length !== head.length,
  };
}

type Command = {
  help: string;
  run(
    argv: readonly string[],
    context: CliContext,
    dependencies: () => Promise<CliDependencies>,
  ): Promise<number>;
};

const COMMANDS: Record<string, Command> = {
  compact: {
    help: COMPACT_HELP,
    run: async (argv, context, dependencies) =>
      runCompact(parseCompactArguments(argv, context.env), context, await dependencies()),
  },
  inspect: {
    help: INSPECT_HELP,
    run: async (argv, context, dependencies) =>
      runInspect(parseInspectArguments(argv), context, await dependencies()),
  },
  reload: {
    help: RELOAD_HELP,
    run: async (argv, context, dependencies) =>
      runReload(parseReloadArguments(argv), context, await dependencies()),
  },
  memory: {
    help: MEMORY_HELP,
    // Loaded on use: it pulls in the memory stores and the retrieval code.
    run: async (argv, context) =>
      (await import('./memory/index.js')).runMemoryCommand(argv, context),
  },
  mcp: {
    help: MCP_HELP,
    // Loaded on use: the MCP SDK is for this command only (other commands start without it).
    run: async (argv, context) => (await import('./mcp/index.js')).runMcpCommand(argv, context),
  },
};

/**
 * Runs the `ctxmem` command line and returns the exit code: 0 done, 1 failed, 2 usage error.
 * Never throws and never prints a stack trace unless `CTXMEM_DEBUG=1`: every failure is one line
 * on stderr.
 */
export async function runCli(argv: readonly string[], context: CliContext): Promise<number> {
  const [first, ...rest] = argv;
  const command = first !== undefined ? COMMANDS[first] : undefined;
  try {
    if (command === undefined) return await runTopLevel(argv, context);
    if (rest.includes('--help') || rest.includes('-h')) {
      context.stdout.write(command.help);
      return 0;
    }
    const dependencies = async () => context.dependencies ?? loadDefaultDependencies();
    const { argv: commandArgv, quiet } = withoutQuiet(rest);
    const commandContext = quiet ? { ...context, quiet: true } : context;
    return await command.run(commandArgv, commandContext, dependencies);
  } catch (error) {
    return reportError(error, command ? first : undefined, context);
  }
}

async function runTopLevel(argv: readonly string[], context: CliContext): Promise<number> {
  const { values, positionals } = parseArguments(argv, {
    help: { type: 'boolean', short: 'h' },
    version: { type: 'boolean', short: 'v' },
  });
  if (values.version) {
    context.stdout.write(`${await readVersion()}\n`);
    return 0;
  }
  if (values.help || positionals[0] === 'help') {
    const topic = positionals[1] !== undefined ? COMMANDS[positionals[1]] : undefined;
    context.stdout.write(topic?.help ?? MAIN_HELP);
    return 0;
  }
  if (positionals.length === 0) {
    context.stderr.write(MAIN_HELP);
    return 2;
  }
  throw new InvalidArgumentError({
    message: `unknown command "${positionals[0]}" (commands: ${Object.keys(COMMANDS).join(', ')})`,
    argument: 'command',
  });
}

async function readVersion(): Promise<string> {
  // The same relative path works from src (tsx) and from dist (built).
  const text = await readFile(new URL('../package.json', import.meta.url), 'utf8');
  return (JSON.parse(text) as { version: string }).version;
}

function reportError(error: unknown, command: string | undefined, context: CliContext): number {
  const usage = InvalidArgumentError.isInstance(error);
  const prefix = command ? `ctxmem ${command}` : 'ctxmem';
  const hint = usage ? ` (see: ctxmem ${command ? `${command} ` : ''}--help)` : '';
  context.stderr.write(`${prefix}: ${oneLine(describeError(error))}${hint}\n`);
  if (context.env.CTXMEM_DEBUG === '1' && error instanceof Error) {
    context.stderr.write(`${error.stack ?? error.message}\n`);
    if (error.cause instanceof Error) context.stderr.write(`caused by: ${error.cause.stack}\n`);
  }
  return usage ? 2 : 1;
}

function describeError(error: unknown): string {
  if (BudgetExceededError.isInstance(error)) {
    const { message, requiredTokens, budgetTokens } = error;
    // Library messages usually name the numbers already; add them only when they do not.
    const named =
      message.includes(String(requiredTokens)) || message.includes(formatNumber(requiredTokens));
    return named
      ? `budget too small: ${message}`
      : `budget too small: ${message} (the smallest valid prompt needs ${formatNumber(requiredTokens)} tokens, the budget is ${formatNumber(budgetTokens)})`;
  }
  if (InvalidMessageError.isInstance(error)) {
    return error.message.includes(error.path)
      ? `invalid message: ${error.message}`
      : `invalid message at ${error.path}: ${error.message}`;
  }
  if (CtxmemError.isInstance(error)) return error.message;
  const message = error instanceof Error ? error.message : String(error);
  return `unexpected error: ${message} (set CTXMEM_DEBUG=1 for the stack trace)`;
}
