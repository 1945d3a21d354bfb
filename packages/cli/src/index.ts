export type { CompactReportJson } from './compact/index.js';
export {
  type Composition,
  type CompositionCategory,
  measureComposition,
  renderComposition,
} from './composition.js';
export type { CliDependencies } from './dependencies.js';
export {
  createOpenAICompatibleComplete,
  type OpenAICompatibleCompleteOptions,
} from './openai-complete.js';
export { type CliContext, runCli } from './run-cli.js';
