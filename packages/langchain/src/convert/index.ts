export { fromLangChainMessage, fromLangChainMessages } from './from-langchain.js';
export {
  CTXMEM_KWARGS_KEY,
  LANGCHAIN_OPTIONS_KEY,
  type LangChainMessageMarker,
  type LangChainPartMarker,
} from './marker.js';
export { MessageConverter } from './message-converter.js';
export { toLangChainMessage, toLangChainMessages } from './to-langchain.js';
