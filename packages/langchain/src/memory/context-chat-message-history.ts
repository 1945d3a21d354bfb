import { BaseChatMessageHistory } from '@langchain/core/chat_history';
import { AIMessage, type BaseMessage, HumanMessage } from '@langchain/core/messages';
import type { ContextChatMemory } from './context-chat-memory.js';

/**
 * A chat message history over a `ContextChatMemory`: reads return the compressed history, writes
 * append to the memory's underlying history and compact when triggered, `clear` clears both.
 */
export class ContextChatMessageHistory extends BaseChatMessageHistory {
  lc_namespace = ['ctxmem', 'langchain'];

  constructor(readonly memory: ContextChatMemory) {
    super();
  }

  getMessages(): Promise<BaseMessage[]> {
    return this.memory.compressedMessages();
  }

  async addMessage(message: BaseMessage): Promise<void> {
    await this.addMessages([message]);
  }

  override async addMessages(messages: BaseMessage[]): Promise<void> {
    await this.memory.chatHistory.addMessages(messages);
    await this.memory.prepare();
  }

  async addUserMessage(message: string): Promise<void> {
    await this.addMessages([new HumanMessage(message)]);
  }

  async addAIMessage(message: string): Promise<void> {
    await this.addMessages([new AIMessage(message)]);
  }

  async clear(): Promise<void> {
    await this.memory.clear();
  }
}
