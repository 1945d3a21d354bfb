export {
  BOOTSTRAP_SEPARATOR,
  type BootstrapFileReport,
  type BootstrapResult,
  bootstrapMessage,
  DEFAULT_BOOTSTRAP_FILES,
  type LoadBootstrapFilesOptions,
  loadBootstrapFiles,
  type SkippedBootstrapFile,
} from './load-bootstrap-files.js';
export {
  TRUNCATION_MARKER_PREFIX,
  type TrimBootstrapOptions,
  trimBootstrapContent,
} from './trim-bootstrap-content.js';
