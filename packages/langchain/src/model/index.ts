export {
  answerText,
  type ChatModelCompleteOptions,
  type ChatModelLike,
  chatModelComplete,
  isChatModel,
  NO_STREAM_TAG,
} from './chat-model-complete.js';
export { chatModelId, chatModelMaxOutputTokens, chatModelWindow } from './chat-model-settings.js';
export {
  type ContextOptions,
  createContext,
  type LangChainContext,
} from './create-context.js';
