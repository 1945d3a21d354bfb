export { CTXMEM_TRACER_NAME, createTelemetry, type Telemetry } from './create-telemetry.js';
export { prepareAttributes, recordCompaction } from './span-attributes.js';
export type { TelemetryOptions, TelemetryScopeMode } from './telemetry-options.js';
export { traceManagerOptions } from './trace-manager-options.js';
export {
  MEMORY_DATA_SOURCE,
  type ModelCallPurpose,
  type TracedStoreKind,
  traceComplete,
  traceSearch,
  traceStore,
  traceSummarizer,
} from './traced-parts.js';
