export {
  createLocalEmbedder,
  LOCAL_EMBEDDER_DIMENSIONS,
  type LocalEmbedder,
  type LocalEmbedderOptions,
} from './local-embedder.js';
export { LocalEmbedderLoadError } from './local-embedder-load-error.js';
