export {
  answerText,
  type ChatModelCompleteOptions,
  type ChatModelLike,
  chatModelComplete,
  chatModelId,
  chatModelMaxOutputTokens,
  chatModelWindow,
  isChatModel,
  NO_STREAM_TAG,
} from './chat-model-complete.js';
export {
  type ContextOptions,
  createContext,
  type LangChainContext,
} from './create-context.js';
