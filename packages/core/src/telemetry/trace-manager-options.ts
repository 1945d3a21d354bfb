import type { ContextManagerOptions } from '../context/context-manager-types.js';
import { createInMemoryOffloadStore } from '../offload/index.js';
import type { Telemetry } from './create-telemetry.js';
import { traceComplete, traceSearch, traceStore } from './traced-parts.js';

const isObject = (value: unknown): value is object => typeof value === 'object' && value !== null;

/**
 * The manager's options with the parts it calls wrapped in spans: the history, offload, memory and
 * lease stores, the memory search, and the model calls of the summarizer and the memory flush. What is
 * not of the expected shape is left as given, so the manager's own checks still name it.
 */
export function traceManagerOptions(
  telemetry: Telemetry,
  options: ContextManagerOptions,
): ContextManagerOptions {
  const { historyStore, leases, memory, flush, modelSummarizer } = options;
  const offloadStore = options.offloadStore ?? createInMemoryOffloadStore();
  return {
    ...options,
    ...(isObject(historyStore)
      ? { historyStore: traceStore(telemetry, 'history', historyStore) }
      : {}),
    ...(isObject(leases) ? { leases: traceStore(telemetry, 'lease', leases) } : {}),
    offloadStore: isObject(offloadStore)
      ? traceStore(telemetry, 'offload', offloadStore)
      : offloadStore,
    ...(isObject(memory)
      ? {
          memory: {
            ...memory,
            ...(isObject(memory.store)
              ? { store: traceStore(telemetry, 'memory', memory.store) }
              : {}),
            ...(isObject(memory.search) ? { search: traceSearch(telemetry, memory.search) } : {}),
          },
        }
      : {}),
    ...(isObject(flush) && typeof flush.complete === 'function'
      ? { flush: { ...flush, complete: traceComplete(telemetry, flush.complete, 'memory-flush') } }
      : {}),
    ...(isObject(modelSummarizer) && typeof modelSummarizer.complete === 'function'
      ? {
          modelSummarizer: {
            ...modelSummarizer,
            complete: traceComplete(telemetry, modelSummarizer.complete, 'summarize'),
          },
        }
      : {}),
  };
}
