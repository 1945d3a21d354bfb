export {
  type OpenAICompatibleServer,
  type OpenAICompatibleServerOptions,
  type OpenAIServerEndpoint,
  type OpenAIServerHandler,
  type OpenAIServerReply,
  type OpenAIServerRequest,
  type OpenAIServerToolCall,
  startOpenAICompatibleServer,
} from './openai-server.js';
