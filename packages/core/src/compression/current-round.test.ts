import { describe, expect, it } from 'vitest';
import type { AssistantMessage, Message, ToolMessage } from '../contracts/index.js';
import { checkToolPairing, toolCallsOf } from '../messages/index.js';
import { currentRoundStrategy } from './current-round.js';
import { createTestContext } from './test-helpers.js';
import { assistant, calls, deepFreeze, filler, results, system, user } from './test-messages.js';

const newest = user(`Analyse these logs ${filler(20_000, 'request')}`);

function agentLoop(): Message[] {
  return deepFreeze([
    system('agent'),
    user('old question'),
    assistant(filler(20_000, 'old')),
    newest,
    calls(
      { id: 'r1', name: 'read_log', input: { file: 'a.log' } },
      { id: 'r2', name: 'read_log', input: { file: 'b.log' } },
    ),
    results(
      { id: 'r1', name: 'read_log', output: `${filler(30_000, 'alpha')}THE-END-A` },
      { id: 'r2', name: 'read_log', output: 'short' },
    ),
    calls({ id: 'r3', name: 'grep', input: { pattern: 'ERROR' } }),
    results({
      id: 'r3',
      name: 'grep',
      output: { type: 'error-json', value: { error: filler(10_000, 'beta') } },
    }),
  ]);
}

describe('current-round strategy', () => {
  it('replaces large current-round results with head/tail excerpts and keeps every call', async () => {
    const input = agentLoop();
    const context = createTestContext();
    const { state, report } = await currentRoundStrategy.apply({ messages: input }, context);
    expect(report).toMatchObject({ strategy: 'current-round', applied: true, messagesAffected: 2 });
    const first = state.messages[5] as ToolMessage;
    expect(first.ctxmem?.kind).toBe('compressed-result');
    const [large, small] = first.content as Array<{ output: { type: string; value: string } }>;
    expect(large!.output.type).toBe('text');
    expect(large!.output.value.startsWith('alpha ipsum')).toBe(true);
    expect(large!.output.value).toContain('THE-END-A');
    expect(large!.output.value).toContain('characters omitted');
    expect(large!.output.value).toContain('reload_context(');
    expect(small!.output).toEqual({ type: 'text', value: 'short' });
    // An error stays an error.
    expect((state.messages[7] as ToolMessage).content[0]).toMatchObject({
      toolCallId: 'r3',
      output: { type: 'error-text' },
    });
    // Calls are byte-identical; pairs are intact.
    expect(state.messages.flatMap(toolCallsOf)).toEqual(input.flatMap(toolCallsOf));
    expect(checkToolPairing(state.messages)).toEqual([]);
  });

  it('never alters the newest user message or the history', async () => {
    const input = agentLoop();
    const { state } = await currentRoundStrategy.apply({ messages: input }, createTestContext());
    expect(state.messages[3]).toBe(newest);
    expect(state.messages.slice(0, 4)).toEqual(input.slice(0, 4));
  });

  it('offloads the originals so they can be reloaded byte-identically', async () => {
    const input = agentLoop();
    const context = createTestContext();
    const { state, report } = await currentRoundStrategy.apply({ messages: input }, context);
    expect(report.offloadIds).toHaveLength(2);
    const [id] = state.messages[5]!.ctxmem!.offloadIds!;
    expect((await context.offloadStore.get(context.scope, id!)).message).toEqual(input[5]);
  });

  it('compresses the largest results first and stops at target', async () => {
    const input = agentLoop();
    const context = createTestContext();
    const total = context.counter.countMessages(input);
    const limited = createTestContext({ targetTokens: total - 5_000 });
    const { state } = await currentRoundStrategy.apply({ messages: input }, limited);
    expect(state.messages[5]!.ctxmem?.kind).toBe('compressed-result');
    expect(state.messages[7]).toBe(input[7]);
  });

  it('compresses what reload_context just brought back only when nothing else makes the room', async () => {
    const input = deepFreeze([
      system('agent'),
      user('Read the offloaded log again.'),
      calls({ id: 'l1', name: 'reload_context', input: { id: 'off_1', page: 1 } }),
      results({ id: 'l1', name: 'reload_context', output: filler(40_000, 'reloaded') }),
      calls({ id: 'g1', name: 'grep', input: { pattern: 'x' } }),
      results({ id: 'g1', name: 'grep', output: filler(20_000, 'grep') }),
      calls({ id: 'g2', name: 'grep', input: { pattern: 'y' } }),
      results({ id: 'g2', name: 'grep', output: filler(20_000, 'grep2') }),
    ] as Message[]);
    const total = createTestContext().counter.countMessages(input);
    // The reload is the largest result, yet the smaller ones go first while they make the room.
    const { state } = await currentRoundStrategy.apply(
      { messages: input },
      createTestContext({ targetTokens: total - 2_000 }),
    );
    expect(state.messages[5]!.ctxmem?.kind).toBe('compressed-result');
    expect(state.messages[3]).toBe(input[3]);
    // When nothing else is left, the reload is compressed too, so the budget still holds.
    const tight = await currentRoundStrategy.apply(
      { messages: input },
      createTestContext({ targetTokens: 1 }),
    );
    expect(tight.state.messages[3]!.ctxmem?.kind).toBe('compressed-result');
  });

  it('shortens the plain reasoning of earlier steps first, never signed reasoning or the last message', async () => {
    const thinking = (seed: string, signed: boolean): AssistantMessage => ({
      role: 'assistant',
      content: [
        {
          type: 'reasoning',
          text: filler(3_000, seed),
          // Anthropic rejects thinking that is edited or whose signature is missing; OpenAI the
          // calls after a reasoning item that is gone. Signed reasoning is opaque.
          ...(signed ? { providerOptions: { anthropic: { signature: `sig-${seed}` } } } : {}),
        },
        { type: 'tool-call', toolCallId: seed, toolName: 'look', input: {} },
      ],
    });
    const input = deepFreeze([
      user('go'),
      thinking('t1', false),
      results({ id: 't1', name: 'look', output: 'ok' }),
      thinking('t2', true),
      results({ id: 't2', name: 'look', output: 'ok' }),
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: filler(3_000, 'final') },
          { type: 'text', text: 'Done.' },
        ],
      } as Message,
    ]);
    const context = createTestContext({ targetTokens: 1 });
    const { state } = await currentRoundStrategy.apply({ messages: input }, context);
    const shortened = (state.messages[1] as AssistantMessage).content as Array<{
      type: string;
      text?: string;
      providerOptions?: unknown;
    }>;
    expect(shortened[0]!.type).toBe('reasoning');
    expect(shortened[0]!.text!.length).toBeLessThan(400);
    expect(shortened[1]).toEqual((input[1] as AssistantMessage).content[1]);
    expect(state.messages[3]).toBe(input[3]);
    expect(state.messages[5]).toBe(input[5]);
  });

  it('does nothing without a user message, without large results, or under target', async () => {
    const noUser = deepFreeze([assistant('hi'), assistant(filler(30_000))]);
    expect(
      (await currentRoundStrategy.apply({ messages: noUser }, createTestContext())).report.applied,
    ).toBe(false);
    const small = deepFreeze([user('q'), calls({ id: 'x' }), results({ id: 'x', output: 'tiny' })]);
    expect(
      (await currentRoundStrategy.apply({ messages: small }, createTestContext())).report.applied,
    ).toBe(false);
    const input = agentLoop();
    const under = await currentRoundStrategy.apply(
      { messages: input },
      createTestContext({ targetTokens: 10_000_000 }),
    );
    expect(under.state.messages).toBe(input);
  });
});
