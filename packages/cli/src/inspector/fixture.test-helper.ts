import type { Message } from '@ctxmem/core';

export const SCRIPT_XSS = '<script>window.__xss = 1</script>';
export const ATTRIBUTE_XSS = '"><img src=x onerror="window.__xss = 2">';

/**
 * An agent session that outgrows a small budget: each round asks, calls a tool that answers a
 * large log (offloaded), and replies. Hostile markup sits in a user message, a tool result and a
 * tool name's input, where it must stay text.
 */
export function agentConversation(rounds = 8): Message[] {
  const messages: Message[] = [
    { role: 'system', content: 'You are a build assistant. Answer briefly.' },
  ];
  for (let round = 1; round <= rounds; round++) {
    const id = `call_${round}`;
    const log = Array.from(
      { length: 160 },
      (_, line) => `round ${round} line ${line}: compiled module-${line} in ${line % 17} ms`,
    ).join('\n');
    messages.push(
      {
        role: 'user',
        content:
          round === 1
            ? `Why does the build fail? ${SCRIPT_XSS} ${ATTRIBUTE_XSS}`
            : `Round ${round}: check the build log again and keep the deadline of Friday in mind.`,
      },
      {
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: id, toolName: 'read_log', input: { round } }],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: id,
            toolName: 'read_log',
            output: { type: 'text', value: `${round === 2 ? `${ATTRIBUTE_XSS}\n` : ''}${log}` },
          },
        ],
      },
      { role: 'assistant', content: `Round ${round}: the log shows module-${round} is slow.` },
    );
  }
  return messages;
}
