import {
  compact,
  countToolDefinitions,
  createExtractiveSummarizer,
  createFileOffloadStore,
  createInMemoryOffloadStore,
  createModelSummarizer,
  createTokenCounter,
  parseConversation,
  reloadContextTool,
  resolveBudget,
  resolveContextWindow,
  serializeConversation,
  withCircuitBreaker,
  withFallback,
} from '@ctxmem/core';
import type { CliDependencies } from './dependencies.js';

export const defaultDependencies: CliDependencies = {
  parseConversation,
  serializeConversation,
  createTokenCounter,
  countToolDefinitions,
  compact,
  createExtractiveSummarizer,
  createModelSummarizer,
  withFallback,
  withCircuitBreaker,
  reloadContextTool,
  createFileOffloadStore,
  createInMemoryOffloadStore,
  resolveContextWindow,
  resolveBudget,
};
