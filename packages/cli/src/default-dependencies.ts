import {
  compact,
  countToolDefinitions,
  createExtractiveSummarizer,
  createFileOffloadStore,
  createInMemoryOffloadStore,
  createModelSummarizer,
  createTokenCounter,
  parseConversation,
  resolveBudget,
  resolveContextWindow,
  serializeConversation,
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
  createFileOffloadStore,
  createInMemoryOffloadStore,
  resolveContextWindow,
  resolveBudget,
};
