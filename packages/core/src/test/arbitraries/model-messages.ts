/** fast-check arbitraries for AI SDK `ModelMessage` histories (plain JSON, AI SDK 5+ shapes). */
import fc from 'fast-check';
import type { Message, ProviderOptions } from '../../contracts/index.js';
import { type ArbitraryMessagesOptions, arbitraryMessages } from './messages.js';
import { arbitraryText, tinyPng } from './values.js';

/**
 * AI SDK `ModelMessage` histories (plain JSON, AI SDK 5+ shapes): valid core histories without
 * ctxmem fields, with `providerOptions` on messages and parts, reasoning parts, files, and tool
 * approval requests and responses mixed in.
 */
export function arbitraryModelMessages(
  options: ArbitraryMessagesOptions = {},
): fc.Arbitrary<Message[]> {
  const providerOptions = fc.option(
    fc.constantFrom<ProviderOptions>(
      { anthropic: { cacheControl: { type: 'ephemeral' } } },
      { openai: { imageDetail: 'low' } },
      { google: { thoughtSignature: 'sig-1' } },
    ),
    { nil: undefined },
  );
  return fc
    .tuple(
      arbitraryMessages({ withImages: true, ...options }),
      fc.array(fc.tuple(providerOptions, providerOptions, fc.boolean(), arbitraryText()), {
        minLength: 64,
        maxLength: 64,
      }),
    )
    .map(([messages, decorations]) => {
      let approvalId: string | undefined;
      return messages.map((message, index): Message => {
        const [messageOptions, partOptions, addExtras, reasoning] =
          decorations[index % decorations.length]!;
        const decorated: Message = messageOptions
          ? ({ ...message, providerOptions: messageOptions } as Message)
          : message;
        if (typeof decorated.content === 'string' || decorated.role === 'system') return decorated;
        const parts = (decorated.content as Array<{ type: string }>).map((part) =>
          partOptions ? { ...part, providerOptions: partOptions } : part,
        );
        if (addExtras && decorated.role === 'assistant') {
          const call = parts.find((part) => part.type === 'tool-call') as
            | { toolCallId: string }
            | undefined;
          parts.unshift({ type: 'reasoning', text: reasoning } as { type: string });
          parts.push({
            type: 'file',
            data: tinyPng,
            mediaType: 'image/png',
            filename: 'plot.png',
          } as { type: string });
          if (call) {
            approvalId = `approval-${index}`;
            parts.push({
              type: 'tool-approval-request',
              approvalId,
              toolCallId: call.toolCallId,
            } as {
              type: string;
            });
          }
        }
        if (decorated.role === 'tool' && approvalId !== undefined) {
          // The user's answer to the approval request of the assistant message before.
          parts.unshift({ type: 'tool-approval-response', approvalId, approved: true } as {
            type: string;
          });
          approvalId = undefined;
        }
        return { ...decorated, content: parts } as Message;
      });
    });
}
