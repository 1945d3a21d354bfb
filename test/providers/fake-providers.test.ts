/*
 * The fake provider servers themselves: each rule they enforce rejects a request that breaks it,
 * with the provider's error body and status, and lets the same request through without the
 * break. The wire tests rely on these checks to call a run "0 rejected requests".
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  type FakeProviderServer,
  type ScriptedReply,
  SKIP_THOUGHT_SIGNATURE,
  startAnthropicServer,
  startGeminiServer,
  startOpenAIResponsesServer,
} from './index.js';

let server: FakeProviderServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function post(url: string, body: unknown) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  return {
    status: response.status,
    text,
    json: text.startsWith('{') ? JSON.parse(text) : undefined,
  };
}

const lookup = { name: 'lookup', input: { query: 'port' } };

describe('fake Anthropic Messages API', () => {
  async function start(reply: ScriptedReply = { text: 'ok' }, contextWindow = 200_000) {
    server = await startAnthropicServer({
      handler: () => reply,
      contextWindow,
      outputCountsAgainstWindow: true,
    });
    return `${server.url}/messages`;
  }
  const base = { model: 'claude-sonnet-4-5', max_tokens: 100 };

  it('answers tool calls and rejects a tool_use without its tool_result right after it', async () => {
    const url = await start({ reasoning: 'Look it up.', toolCalls: [lookup, lookup] });
    const first = await post(url, { ...base, messages: [{ role: 'user', content: 'Port?' }] });
    expect(first.status).toBe(200);
    const calls = first.json.content.filter((block: { type: string }) => block.type === 'tool_use');
    expect(calls).toHaveLength(2);
    const assistant = { role: 'assistant', content: first.json.content };
    const onlyOne = await post(url, {
      ...base,
      messages: [
        { role: 'user', content: 'Port?' },
        assistant,
        {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: calls[0].id, content: '8080' }],
        },
      ],
    });
    expect(onlyOne.status).toBe(400);
    expect(onlyOne.json).toMatchObject({
      type: 'error',
      error: {
        type: 'invalid_request_error',
        message: expect.stringContaining(
          `\`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${calls[1].id}`,
        ),
      },
    });
    const results = calls.map((call: { id: string }) => ({
      type: 'tool_result',
      tool_use_id: call.id,
      content: '8080',
    }));
    const textFirst = await post(url, {
      ...base,
      messages: [
        { role: 'user', content: 'Port?' },
        assistant,
        { role: 'user', content: [{ type: 'text', text: 'here' }, ...results] },
      ],
    });
    expect(textFirst.json.error.message).toContain('must come first');
    const stray = await post(url, {
      ...base,
      messages: [
        { role: 'user', content: 'Port?' },
        { role: 'assistant', content: 'Sure.' },
        { role: 'user', content: results },
      ],
    });
    expect(stray.json.error.message).toContain(
      'unexpected `tool_use_id` found in `tool_result` blocks',
    );
    const valid = await post(url, {
      ...base,
      messages: [{ role: 'user', content: 'Port?' }, assistant, { role: 'user', content: results }],
    });
    expect(valid.status).toBe(200);
    expect(server!.rejected('rule')).toHaveLength(3);
  });

  it('checks thinking: signed, unmodified, first, and present in the tool loop', async () => {
    const url = await start({ reasoning: 'Check the log.', toolCalls: [lookup] });
    const thinking = { ...base, thinking: { type: 'enabled', budget_tokens: 1024 } };
    const first = await post(url, { ...thinking, messages: [{ role: 'user', content: 'Port?' }] });
    const [block, call] = first.json.content;
    expect(block).toMatchObject({ type: 'thinking', thinking: 'Check the log.' });
    const loop = (assistantContent: unknown[]) => ({
      ...thinking,
      messages: [
        { role: 'user', content: 'Port?' },
        { role: 'assistant', content: assistantContent },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: call.id, content: '8080' }] },
      ],
    });
    expect((await post(url, loop([block, call]))).status).toBe(200);
    const edited = await post(url, loop([{ ...block, thinking: 'Edited.' }, call]));
    expect(edited.json.error.message).toBe(
      'messages.1.content.0: Invalid `signature` in `thinking` block',
    );
    const missing = await post(url, loop([call]));
    expect(missing.json.error.message).toContain(
      'When `thinking` is enabled, a final `assistant` message must start with a thinking block',
    );
    const second = await post(url, loop([{ type: 'text', text: 'Let me see.' }, block, call]));
    expect(second.json.error.message).toContain(
      'the first block must be thinking or redacted_thinking',
    );
  });

  it('allows at most 4 cache_control breakpoints', async () => {
    const url = await start();
    const cached = (text: string) => ({ type: 'text', text, cache_control: { type: 'ephemeral' } });
    const body = (count: number) => ({
      ...base,
      system: [cached('rules')],
      messages: [
        { role: 'user', content: Array.from({ length: count }, (_, index) => cached(`q${index}`)) },
      ],
    });
    expect((await post(url, body(3))).status).toBe(200);
    const over = await post(url, body(4));
    expect(over.json.error.message).toBe(
      'A maximum of 4 blocks with cache_control may be provided. Found 5.',
    );
  });

  it('rejects a prompt over the window with its token counts', async () => {
    const url = await start({ text: 'ok' }, 2_000);
    const long = 'alpha beta gamma delta '.repeat(600);
    const tooLong = await post(url, { ...base, messages: [{ role: 'user', content: long }] });
    expect(tooLong.status).toBe(400);
    expect(tooLong.json.error.message).toMatch(/^prompt is too long: \d+ tokens > 2000 maximum$/);
    const withOutput = await post(url, {
      ...base,
      max_tokens: 1_900,
      messages: [{ role: 'user', content: 'alpha beta '.repeat(60) }],
    });
    expect(withOutput.json.error.message).toMatch(
      /^input length and `max_tokens` exceed context limit: \d+ \+ 1900 > 2000/,
    );
    expect(server!.rejected('overflow')).toHaveLength(2);
  });
});

describe('fake Gemini API', () => {
  const model = 'gemini-3-pro-preview';
  async function start(reply: ScriptedReply, contextWindow?: number) {
    const gemini = await startGeminiServer({
      handler: () => reply,
      ...(contextWindow ? { contextWindow } : {}),
    });
    server = gemini;
    return { gemini, url: `${gemini.url}/models/${model}:generateContent` };
  }
  const user = (text: string) => ({ role: 'user', parts: [{ text }] });
  const response = (name: string) => ({
    functionResponse: { name, response: { content: '8080' } },
  });

  it('wants as many function responses as calls, right after the call turn', async () => {
    const { url } = await start({ toolCalls: [lookup, lookup] });
    const first = await post(url, { contents: [user('Port?')] });
    expect(first.status).toBe(200);
    const modelTurn = first.json.candidates[0].content;
    expect(modelTurn.parts.filter((part: object) => 'functionCall' in part)).toHaveLength(2);
    expect(modelTurn.parts[0].thoughtSignature).toEqual(expect.any(String));
    const one = await post(url, {
      contents: [user('Port?'), modelTurn, { role: 'user', parts: [response('lookup')] }],
    });
    expect(one.json).toEqual({
      error: {
        code: 400,
        message:
          'Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.',
        status: 'INVALID_ARGUMENT',
      },
    });
    const misplaced = await post(url, {
      contents: [user('Port?'), { role: 'model', parts: [{ text: 'Hm.' }] }, modelTurn],
    });
    expect(misplaced.json.error.message).toContain(
      'function call turn comes immediately after a user turn',
    );
    const both = await post(url, {
      contents: [
        user('Port?'),
        modelTurn,
        { role: 'user', parts: [response('lookup'), response('lookup')] },
      ],
    });
    expect(both.status).toBe(200);
  });

  it('wants the thought signature of each step of the current turn, unchanged', async () => {
    const { gemini, url } = await start({ toolCalls: [lookup] });
    const first = await post(url, { contents: [user('Port?')] });
    const modelTurn = first.json.candidates[0].content;
    const [signedCall] = modelTurn.parts;
    const loop = (call: object) => ({
      contents: [
        user('Port?'),
        { role: 'model', parts: [call] },
        { role: 'user', parts: [response('lookup')] },
      ],
    });
    expect((await post(url, loop(signedCall))).status).toBe(200);
    const { thoughtSignature: _signature, ...unsigned } = signedCall;
    const missing = await post(url, loop(unsigned));
    expect(missing.json.error.message).toContain(
      'Function call is missing a thought_signature in functionCall parts.',
    );
    const forged = await post(url, loop({ ...signedCall, thoughtSignature: 'Zm9yZ2Vk' }));
    expect(forged.json.error.message).toContain('Thought signature is not valid.');
    const skipped = await post(
      url,
      loop({ ...unsigned, thoughtSignature: SKIP_THOUGHT_SIGNATURE }),
    );
    expect(skipped.status).toBe(200);
    expect(gemini.signatureSkips()).toHaveLength(1);
    // An earlier turn's calls are not validated.
    const later = await post(url, {
      contents: [
        ...loop(unsigned).contents,
        { role: 'model', parts: [{ text: '8080' }] },
        user('Thanks.'),
      ],
    });
    expect(later.status).toBe(200);
  });

  it('rejects input over the limit with the token counts', async () => {
    const { url } = await start({ text: 'ok' }, 1_000);
    const over = await post(url, { contents: [user('alpha beta gamma '.repeat(500))] });
    expect(over.status).toBe(400);
    expect(over.json.error.message).toMatch(
      /^The input token count \(\d+\) exceeds the maximum number of tokens allowed \(1000\)\.$/,
    );
  });
});

describe('fake OpenAI Responses API', () => {
  async function start(reply: ScriptedReply, contextWindow?: number) {
    server = await startOpenAIResponsesServer({
      handler: () => reply,
      ...(contextWindow ? { contextWindow } : {}),
    });
    return `${server.url}/responses`;
  }
  const reasoning = { effort: 'low', summary: 'auto' };

  it("wants a function call's reasoning item before it, and every call answered", async () => {
    const url = await start({ reasoning: 'Look it up.', toolCalls: [lookup] });
    const first = await post(url, { model: 'o4-mini', reasoning, input: 'Port?' });
    const [rs, fc] = first.json.output;
    expect(rs).toMatchObject({ type: 'reasoning', id: expect.stringMatching(/^rs_/) });
    const output = { type: 'function_call_output', call_id: fc.call_id, output: '8080' };
    const body = (items: object[]) => ({
      model: 'o4-mini',
      reasoning,
      input: [{ role: 'user', content: 'Port?' }, ...items],
    });
    expect(
      (await post(url, body([{ type: 'item_reference', id: rs.id }, fc, output]))).status,
    ).toBe(200);
    const without = await post(url, body([fc, output]));
    expect(without.json).toEqual({
      error: {
        message: `Item '${fc.id}' of type 'function_call' was provided without its required 'reasoning' item: '${rs.id}'.`,
        type: 'invalid_request_error',
        param: 'input',
        code: null,
      },
    });
    const dangling = await post(url, body([{ type: 'item_reference', id: rs.id }, output]));
    expect(dangling.json.error.message).toBe(
      `Item '${rs.id}' of type 'reasoning' was provided without its required following item.`,
    );
    const unanswered = await post(url, body([{ type: 'item_reference', id: rs.id }, fc]));
    expect(unanswered.json.error.message).toBe(
      `No tool output found for function call ${fc.call_id}.`,
    );
    const orphan = await post(url, body([output]));
    expect(orphan.json.error.message).toContain('No tool call found for function call output');
    const unknown = await post(url, body([{ type: 'item_reference', id: 'rs_unknown' }]));
    expect(unknown.json.error.message).toContain("Item with id 'rs_unknown' not found.");
  });

  it('checks encrypted reasoning when nothing is stored', async () => {
    const url = await start({ reasoning: 'Look it up.', toolCalls: [lookup] });
    const stateless = {
      model: 'o4-mini',
      reasoning,
      store: false,
      include: ['reasoning.encrypted_content'],
    };
    const first = await post(url, { ...stateless, input: 'Port?' });
    const [rs, fc] = first.json.output;
    expect(rs.encrypted_content).toEqual(expect.any(String));
    const output = { type: 'function_call_output', call_id: fc.call_id, output: '8080' };
    const input = (item: object) => [{ role: 'user', content: 'Port?' }, item, fc, output];
    expect((await post(url, { ...stateless, input: input(rs) })).status).toBe(200);
    const tampered = await post(url, {
      ...stateless,
      input: input({ ...rs, encrypted_content: 'eA==' }),
    });
    expect(tampered.json.error.message).toBe(
      `The encrypted content for item ${rs.id} could not be verified.`,
    );
  });

  it('rejects input over the context window with context_length_exceeded', async () => {
    const url = await start({ text: 'ok' }, 1_000);
    const over = await post(url, { model: 'gpt-5', input: 'alpha beta gamma '.repeat(500) });
    expect(over.status).toBe(400);
    expect(over.json.error).toMatchObject({ code: 'context_length_exceeded', param: 'input' });
  });
});
