import type * as core from '@ctxmem/core';

export type {
  CompactOptions,
  CompactResult,
  ConversationFormat,
  HistoryMode,
  ParsedConversation,
} from '@ctxmem/core';

/** What `resolveBudget` plans for a context window. */
export type BudgetPlan = ReturnType<typeof core.resolveBudget>;

/**
 * Everything the CLI uses from the rest of ctxmem, in one place: the commands only see this
 * interface, so they can be tested with stand-ins, and `--help` / `--version` do not pay for
 * loading the tokenizer. The types are core's own, so they cannot drift from it.
 */
export type CliDependencies = Pick<
  typeof core,
  | 'boundedCounter'
  | 'parseConversation'
  | 'serializeConversation'
  | 'createTokenCounter'
  | 'countToolDefinitions'
  | 'compact'
  | 'createExtractiveSummarizer'
  | 'createModelSummarizer'
  | 'withFallback'
  | 'withCircuitBreaker'
  | 'reloadContextTool'
  | 'createFileOffloadStore'
  | 'createInMemoryOffloadStore'
  | 'resolveContextWindow'
  | 'resolveBudget'
>;

/** The real implementations, loaded on first use. */
export async function loadDefaultDependencies(): Promise<CliDependencies> {
  const module = await import('./default-dependencies.js');
  return module.defaultDependencies;
}
