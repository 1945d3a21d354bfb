import { resolveBudget, resolveContextWindow } from '../budget/index.js';
import { compact } from '../compression/index.js';
import { parseConversation, serializeConversation } from '../messages/index.js';
import { createFileOffloadStore, createInMemoryOffloadStore } from '../offload/index.js';
import {
  createExtractiveSummarizer,
  createModelSummarizer,
  withFallback,
} from '../summarize/index.js';
import { createTokenCounter } from '../tokens/index.js';
import type { CliDependencies } from './dependencies.js';

export const defaultDependencies: CliDependencies = {
  parseConversation,
  serializeConversation,
  createTokenCounter,
  compact,
  createExtractiveSummarizer,
  createModelSummarizer,
  withFallback,
  createFileOffloadStore,
  createInMemoryOffloadStore,
  resolveContextWindow,
  resolveBudget,
};
