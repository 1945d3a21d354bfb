export {
  createExtractiveSummarizer,
  type ExtractiveSummarizerOptions,
} from './extractive-summarizer.js';
export { fitSummary } from './fit-summary.js';
export { mergeSummaries } from './merge-summaries.js';
export { parseRenderedSummary, stripSummaryHeading } from './parse-rendered-summary.js';
export {
  emptySections,
  renderSummary,
  SUMMARY_HEADING,
  SUMMARY_SECTION_TITLES,
} from './render-summary.js';
