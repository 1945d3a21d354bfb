/** The text the extractive summarizer reads from a message: prose, tool-run records, tool results. */
import type { Message, ToolResultPart } from '../contracts/index.js';
import { toolOutputText, toolResultsOf } from '../messages/index.js';
import type { ExtractSettings } from './extract-candidates.js';
import { collapseWhitespace, truncateText } from './summary-text.js';

/**
 * A tool-run record (written by the tool-runs strategy) as tool bullets and prose: its bracketed
 * header and footer are boilerplate, each numbered call line becomes a tool bullet (name,
 * arguments and the head of the result, without the reload hint), and quoted assistant text
 * stays prose.
 */
export function readToolRunRecord(
  text: string,
  settings: ExtractSettings,
): { tools: Array<{ call: string; result: string }>; prose: string } {
  const tools: Array<{ call: string; result: string }> = [];
  const prose: string[] = [];
  for (const line of text.split('\n')) {
    const trimmed = line.trim();
    if (trimmed === '' || /^\[.*\]$/u.test(trimmed)) continue;
    const call = /^\d+\.\s+([^\s(]+)\((.*?)\)\s+→\s+(.*?)(?:\s+\(\w+\(".*"\)\))?$/u.exec(trimmed);
    if (call) {
      const [, toolName, argumentsText, result] = call;
      const head = truncateText(unquote(result!), settings.toolResultChars);
      tools.push({
        call: `Tool ${toolName}(${truncateText(argumentsText!, settings.toolArgumentsChars)})`,
        result: ` → ${head}`,
      });
      continue;
    }
    const quoted = /^assistant:\s+(.*)$/u.exec(trimmed);
    prose.push(quoted ? unquote(quoted[1]!) : trimmed);
  }
  return { tools, prose: prose.join('\n') };
}

/** The text of a JSON string literal (the record quotes results as data), else the text itself. */
export function unquote(text: string): string {
  const errorPrefix = /^error\s+(?=")/u.exec(text)?.[0] ?? '';
  const body = text.slice(errorPrefix.length);
  if (!body.startsWith('"')) return text;
  try {
    const value: unknown = JSON.parse(body);
    return typeof value === 'string'
      ? `${errorPrefix ? 'failed: ' : ''}${collapseWhitespace(value)}`
      : text;
  } catch {
    return text;
  }
}

/** Text and plain parts only: reasoning is the model's scratchpad and binary parts have no text. */
export function plainText(message: Message): string {
  if (typeof message.content === 'string') return message.content;
  const pieces: string[] = [];
  for (const part of message.content) {
    if (part.type === 'text') pieces.push(part.text);
  }
  return pieces.join('\n');
}

export function collectToolResults(messages: readonly Message[]): Map<string, ToolResultPart> {
  const results = new Map<string, ToolResultPart>();
  for (const message of messages) {
    for (const result of toolResultsOf(message)) results.set(result.toolCallId, result);
  }
  return results;
}

export function resultHead(result: ToolResultPart, maxChars: number): string {
  const failed = result.output.type === 'error-text' || result.output.type === 'error-json';
  const head = truncateText(collapseWhitespace(toolOutputText(result.output)), maxChars);
  return failed ? `failed: ${head}` : head;
}
