import type { HistoryStore, OffloadStore, ToolDefinition } from '../contracts/index.js';
import type { MemorySearcher } from '../inject/index.js';
export interface SearchMemoryResult {
  results: Array<{
    content: string;
    type: string;
    tags: string[];
    source?: string;
    score: number;
    updatedAt: string;
  }>;
}
/** `search_memory(query, top_k)`: long-term memories relevant to a query, best first. */
export declare function searchMemoryTool(search: MemorySearcher): ToolDefinition<
  {
    query: string;
    top_k: number;
  },
  SearchMemoryResult
>;
export interface RecallConversationResult {
  turns: Array<{
    turn: number;
    messages: Array<{
      role: string;
      text: string;
    }>;
  }>;
  /** Requested turns that do not exist (yet) in this conversation. */
  missing: number[];
}
/** `recall_conversation(turn_numbers)`: exact original turns from the complete history. */
export declare function recallConversationTool(history: HistoryStore): ToolDefinition<
  {
    turn_numbers: number[];
  },
  RecallConversationResult
>;
export interface ReloadContextResult {
  id: string;
  role: string;
  content: string;
}
/** `reload_context(id)`: the full content of a message that was offloaded out of the prompt. */
export declare function reloadContextTool(offload: OffloadStore): ToolDefinition<
  {
    id: string;
  },
  ReloadContextResult
>;
export interface MemoryToolsOptions {
  /** Enables `search_memory`. */
  search?: MemorySearcher;
  /** Enables `recall_conversation`. */
  history?: HistoryStore;
  /** Enables `reload_context`. */
  offload?: OffloadStore;
}
/** The memory tools for whichever stores are given, keyed by tool name. */
export declare function createMemoryTools({
  search,
  history,
  offload,
}: MemoryToolsOptions): Record<string, ToolDefinition<never, unknown>>;
//# sourceMappingURL=memory-tools.d.ts.map
