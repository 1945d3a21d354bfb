import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { type CliDependencies, loadDefaultDependencies } from './dependencies.js';
import { formatNumber, oneLine } from './format.js';
import {
  COMPACT_HELP,
  INSPECT_HELP,
  MAIN_HELP,
  MCP_HELP,
  MEMORY_HELP,
  RELOAD_HELP,
} from './help.js';

// Nothing here imports `@ctxmem/core` or a command's module up front: `ctxmem --help` needs
// neither, and a command loads only its own code (`ctxmem compact` not the inspector, memory, MCP
// or reload code), each through `import()` when it runs.

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
    run: async (argv, context, dependencies) => {
      const { parseCompactArguments, runCompact } = await import('./compact/index.js');
      return runCompact(parseCompactArguments(argv, context.env), context, await dependencies());
    },
  },
  inspect: {
    help: INSPECT_HELP,
    run: async (argv, context, dependencies) => {
      const { parseInspectArguments, runInspect } = await import('./inspect-command.js');
      return runInspect(parseInspectArguments(argv), context, await dependencies());
    },
  },
  reload: {
    help: RELOAD_HELP,
    run: async (argv, context, dependencies) => {
      const { parseReloadArguments, runReload } = await import('./reload-command.js');
      return runReload(parseReloadArguments(argv), context, await dependencies());
    },
  },
  memory: {
    help: MEMORY_HELP,
    run: async (argv, context) =>
      (await import('./memory/index.js')).runMemoryCommand(argv, context),
  },
  mcp: {
    help: MCP_HELP,
    // The MCP SDK is for this command only (other commands start without it).
    run: async (argv, context) => (await import('./mcp/index.js')).runMcpCommand(argv, context),
  },
};

/** The options of `ctxmem` itself, before any command. */
const TOP_LEVEL_OPTIONS = {
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
} as const;

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
    return await reportError(error, command ? first : undefined, context);
  }
}

async function runTopLevel(argv: readonly string[], context: CliContext): Promise<number> {
  let parsed: { values: { help?: boolean; version?: boolean }; positionals: string[] };
  try {
    parsed = parseArgs({
      args: [...argv],
      options: TOP_LEVEL_OPTIONS,
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    // Worded as every command's usage errors are; that needs core, so only on this path.
    throw (await import('./arguments.js')).asUsageError(error);
  }
  const { values, positionals } = parsed;
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
  const { InvalidArgumentError } = await import('@ctxmem/core');
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

async function reportError(
  error: unknown,
  command: string | undefined,
  context: CliContext,
): Promise<number> {
  // A command that failed has loaded core already; an error before any command is rare.
  const core = await import('@ctxmem/core');
  const usage = core.InvalidArgumentError.isInstance(error);
  const prefix = command ? `ctxmem ${command}` : 'ctxmem';
  const hint = usage ? ` (see: ctxmem ${command ? `${command} ` : ''}--help)` : '';
  context.stderr.write(`${prefix}: ${oneLine(describeError(error, core))}${hint}\n`);
  if (context.env.CTXMEM_DEBUG === '1' && error instanceof Error) {
    context.stderr.write(`${error.stack ?? error.message}\n`);
    if (error.cause instanceof Error) context.stderr.write(`caused by: ${error.cause.stack}\n`);
  }
  return usage ? 2 : 1;
}

function describeError(error: unknown, core: typeof import('@ctxmem/core')): string {
  const { BudgetExceededError, CtxmemError, InvalidMessageError } = core;
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
