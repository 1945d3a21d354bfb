/**
 * What the tool-call pairing writes: the output history (copied only once something changes) and
 * the message that keeps orphan results.
 */
import type {
  FilePart,
  ImagePart,
  Message,
  TextPart,
  ToolResultPart,
  UserContentPart,
  UserMessage,
} from '../contracts/index.js';
import { toolOutputText } from './message-utils.js';

/**
 * The paired messages, copied from the input only from the first change on: a well-paired
 * history comes back as the input array itself, without a copy.
 */
export class PairedOutput {
  private copy: Message[] | undefined;
  /** While nothing changed: how many input messages the output is. */
  private kept = 0;

  constructor(private readonly input: Message[]) {}

  /** What stands where `input[index]` was: the same object when unchanged, `undefined` when dropped. */
  put(index: number, message: Message | undefined): void {
    if (this.copy === undefined) {
      if (index === this.kept && message === this.input[index]) {
        this.kept++;
        return;
      }
      this.copy = this.input.slice(0, this.kept);
    }
    if (message !== undefined) this.copy.push(message);
  }

  /** A message the repair adds. */
  insert(message: Message): void {
    this.copy ??= this.input.slice(0, this.kept);
    this.copy.push(message);
  }

  result(): Message[] {
    if (this.copy !== undefined) return this.copy;
    return this.kept === this.input.length ? this.input : this.input.slice(0, this.kept);
  }
}

/** Keeps the content of orphan tool results as a user message (text, images and files). */
export function orphanResultsMessage(results: readonly ToolResultPart[]): UserMessage {
  const content: UserContentPart[] = [];
  for (const result of results) {
    const heading = `Result of tool ${JSON.stringify(result.toolName || 'unknown')} (call id ${JSON.stringify(result.toolCallId)}) whose call is missing from the history:`;
    if (result.output.type !== 'content') {
      content.push({ type: 'text', text: `${heading}\n${toolOutputText(result.output)}` });
      continue;
    }
    const texts: string[] = [heading];
    const media: Array<ImagePart | FilePart> = [];
    for (const item of result.output.value) {
      const record = item as Record<string, unknown>;
      if (item.type === 'text' && typeof record.text === 'string') {
        texts.push(record.text);
        continue;
      }
      const data = record.data ?? record.url;
      const mediaType = typeof record.mediaType === 'string' ? record.mediaType : undefined;
      if (
        typeof data === 'string' &&
        (item.type.startsWith('image') || mediaType?.startsWith('image/'))
      ) {
        media.push({ type: 'image', image: data, ...(mediaType ? { mediaType } : {}) });
      } else if (typeof data === 'string' && mediaType) {
        media.push({
          type: 'file',
          data,
          mediaType,
          ...(typeof record.filename === 'string' ? { filename: record.filename } : {}),
        });
      } else {
        texts.push(`[${item.type}]`);
      }
    }
    content.push({ type: 'text', text: texts.join('\n') } satisfies TextPart, ...media);
  }
  return { role: 'user', content };
}
