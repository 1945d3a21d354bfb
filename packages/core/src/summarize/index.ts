export {
  emptySections,
  renderSummary,
  SUMMARY_HEADING,
  SUMMARY_SECTION_TITLES,
} from './render-summary.js';
