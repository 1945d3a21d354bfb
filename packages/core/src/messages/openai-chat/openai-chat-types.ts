/**
 * The OpenAI Chat Completions request message shapes that `toOpenAIChat` produces and
 * `fromOpenAIChat` reads. Only the fields ctxmem understands are typed; unknown fields on messages
 * and parts are carried through untouched.
 */

export interface OpenAIChatTextPart {
  type: 'text';
  text: string;
}

export interface OpenAIChatImagePart {
  type: 'image_url';
  image_url: { url: string; detail?: string };
}

export interface OpenAIChatAudioPart {
  type: 'input_audio';
  input_audio: { data: string; format: string };
}

export interface OpenAIChatFilePart {
  type: 'file';
  file: { file_data?: string; file_id?: string; filename?: string };
}

export interface OpenAIChatRefusalPart {
  type: 'refusal';
  refusal: string;
}

export type OpenAIChatUserPart =
  | OpenAIChatTextPart
  | OpenAIChatImagePart
  | OpenAIChatAudioPart
  | OpenAIChatFilePart;

export type OpenAIChatToolCall =
  | { id: string; type: 'function'; function: { name: string; arguments: string } }
  | { id: string; type: 'custom'; custom: { name: string; input: string } };

export interface OpenAIChatSystemMessage {
  role: 'system' | 'developer';
  content: string | OpenAIChatTextPart[];
  name?: string;
}

export interface OpenAIChatUserMessage {
  role: 'user';
  content: string | OpenAIChatUserPart[];
  name?: string;
}

export interface OpenAIChatAssistantMessage {
  role: 'assistant';
  content?: string | Array<OpenAIChatTextPart | OpenAIChatRefusalPart> | null;
  refusal?: string | null;
  name?: string;
  tool_calls?: OpenAIChatToolCall[];
}

export interface OpenAIChatToolMessage {
  role: 'tool';
  tool_call_id: string;
  content: string | OpenAIChatTextPart[];
}

export type OpenAIChatMessage =
  | OpenAIChatSystemMessage
  | OpenAIChatUserMessage
  | OpenAIChatAssistantMessage
  | OpenAIChatToolMessage;
