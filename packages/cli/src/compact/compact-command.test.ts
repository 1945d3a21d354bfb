import { execFile, spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import {
  countToolDefinitions,
  createTokenCounter,
  type Message,
  parseConversation,
  serializeConversation,
} from '@ctxmem/core';
import { SUMMARY_HEADING } from '@ctxmem/core/adapter-kit';
import { seededBase64 } from '@ctxmem/core/test';
import { describe, expect, it } from 'vitest';
import { callerDirectory } from '../caller-directory.js';
import type { CliContext, CompactReportJson } from '../index.js';
import { useCliFolder } from '../run-cli.test-helper.js';
import { deployLogBody } from '../test-bodies.test-helper.js';

const execFileAsync = promisify(execFile);
const repositoryRoot = fileURLToPath(new URL('../../../../', import.meta.url));
const agentSession = join(repositoryRoot, 'examples/conversations/agent-session.json');

const cli = useCliFolder('ctxmem-compact');
const { run } = cli;

async function readJson<T>(name: string): Promise<T> {
  return JSON.parse(await readFile(join(cli.directory(), name), 'utf8')) as T;
}

describe('ctxmem compact: paths resolve against the caller', () => {
  it('takes CTXMEM_CALLER_CWD when it is absolute, else the process folder', () => {
    expect(callerDirectory({ CTXMEM_CALLER_CWD: '/home/me/work' }, '/repo')).toBe('/home/me/work');
    expect(callerDirectory({}, '/repo')).toBe('/repo');
    expect(callerDirectory({ CTXMEM_CALLER_CWD: '' }, '/repo')).toBe('/repo');
    expect(callerDirectory({ CTXMEM_CALLER_CWD: 'relative/dir' }, '/repo')).toBe('/repo');
  });

  it('scripts/run.sh exports the folder it was started from before changing to the repository', async () => {
    const { stdout } = await execFileAsync(
      'bash',
      [
        join(repositoryRoot, 'scripts/run.sh'),
        'node',
        '-e',
        'process.stdout.write(JSON.stringify([process.env.CTXMEM_CALLER_CWD, process.cwd()]))',
      ],
      { cwd: cli.directory(), env: { ...process.env, CTXMEM_CALLER_CWD: '' } },
    );
    const [caller, processDirectory] = JSON.parse(stdout) as [string, string];
    expect(caller).toBe(cli.directory());
    expect(processDirectory).toBe(repositoryRoot.replace(/\/$/, ''));
  });

  it('the binary started in another folder reads stdin and writes --out in the caller’s folder', async () => {
    const bin = fileURLToPath(new URL('../bin.ts', import.meta.url));
    const body = await readFile(agentSession, 'utf8');
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', bin, 'compact', '-', '--budget', '8000', '--out', 'small.json'],
      { cwd: repositoryRoot, env: { ...process.env, CTXMEM_CALLER_CWD: cli.directory() } },
    );
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdin.end(body);
    const code = await new Promise<number | null>((done) => child.on('close', done));
    expect(code, stderr).toBe(0);
    const written = await readJson<{ model: string; messages: unknown[] }>('small.json');
    expect(written.model).toBe('gpt-4o-2024-08-06');
    expect(stderr).toContain('Wrote small.json');
    // Offloads land next to --out, in the caller's folder too.
    expect(stderr).toMatch(/\.ctxmem\/offload/);
    expect((await readFile(join(cli.directory(), 'small.json'), 'utf8')).length).toBeGreaterThan(
      100,
    );
  });

  it('resolves input, --out, --report-json and --offload-dir against the context folder', async () => {
    await writeFile(join(cli.directory(), 'body.json'), await readFile(agentSession, 'utf8'));
    const result = await run([
      'compact',
      'body.json',
      '--budget',
      '8k',
      '--out',
      'out.json',
      '--report-json',
      'report.json',
      '--offload-dir',
      'payloads',
    ]);
    expect(result.code, result.stderr).toBe(0);
    const report = await readJson<CompactReportJson>('report.json');
    expect(report.offload.dir).toBe(join(cli.directory(), 'payloads'));
    expect((await readJson<{ messages: unknown[] }>('out.json')).messages.length).toBeGreaterThan(
      1,
    );
  });
});

describe('ctxmem compact: - for stdin and stdout', () => {
  it('reads the body from stdin and writes the result to stdout', async () => {
    const body = await readFile(agentSession, 'utf8');
    // Chunks split inside a multi-byte character must still decode.
    const bytes = new TextEncoder().encode(body.replace('"user"', '"user" ') + ' ');
    const chunks = [bytes.slice(0, 1001), bytes.slice(1001)];
    const result = await run(['compact', '-', '--budget', '8000', '--out', '-'], {
      stdin: chunks,
    });
    expect(result.code, result.stderr).toBe(0);
    const output = parseConversation(JSON.parse(result.stdout));
    expect(output.format).toBe('openai-chat');
    expect(result.stderr).toMatch(/stdin/);
  });

  it('writes the JSON report to stdout when the result goes to a file', async () => {
    const result = await run(
      ['compact', '-', '--budget', '8000', '--out', 'out.json', '--report-json', '-'],
      { stdin: [await readFile(agentSession, 'utf8')] },
    );
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as CompactReportJson;
    expect(report.file).toBe('-');
    expect(report.after.tokens).toBeLessThanOrEqual(8000);
  });

  it('rejects stdin that is a terminal or absent, and two results on stdout, as usage errors', async () => {
    const terminal = Object.assign([] as string[], { isTTY: true });
    for (const [argv, overrides, pattern] of [
      [['compact', '-', '--budget', '8k'], { stdin: terminal }, /stdin is a terminal/],
      [['compact', '-', '--budget', '8k'], {}, /no stdin/],
      [
        ['compact', '-', '--budget', '8k', '--report-json', '-'],
        { stdin: ['{}'] },
        /--report-json - needs --out/,
      ],
    ] as const) {
      const result = await run([...argv], overrides as Partial<CliContext>);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(pattern);
    }
  });

  it('reports invalid JSON on stdin as a failure naming stdin', async () => {
    const result = await run(['compact', '-', '--budget', '8k'], { stdin: ['{"messages": ['] });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/stdin is not valid JSON/);
  });
});

describe('ctxmem compact: the tokenizer follows the body’s model', () => {
  async function compactWithModel(model: string | undefined, extra: string[] = []) {
    const body = JSON.parse(await readFile(agentSession, 'utf8')) as Record<string, unknown>;
    if (model === undefined) delete body.model;
    else body.model = model;
    await writeFile(join(cli.directory(), 'body.json'), JSON.stringify(body));
    const result = await run([
      'compact',
      'body.json',
      '--budget',
      '100k',
      '--out',
      'out.json',
      '--report-json',
      'report.json',
      ...extra,
    ]);
    expect(result.code, result.stderr).toBe(0);
    return readJson<CompactReportJson>('report.json');
  }

  it('counts gpt-4 with cl100k_base and gpt-4o with o200k_base, exactly', async () => {
    const gpt4 = await compactWithModel('gpt-4');
    const gpt4o = await compactWithModel('gpt-4o');
    expect(gpt4.counter).toBe('tiktoken:cl100k_base');
    expect(gpt4o.counter).toBe('tiktoken:o200k_base');
    expect(gpt4.tokenizer).toEqual({ model: 'gpt-4', margin: 1 });
    const body = parseConversation(JSON.parse(await readFile(agentSession, 'utf8')));
    const cl100k = createTokenCounter({ encoding: 'cl100k_base' });
    const tools = (body.envelope?.tools ?? []) as unknown[];
    expect(gpt4.before.tokens).toBe(
      cl100k.countMessages(body.messages) + countToolDefinitions(tools, cl100k),
    );
    expect(gpt4.before.tokens).not.toBe(gpt4o.before.tokens);
  });

  it('lets --encoding win over the body’s model', async () => {
    const report = await compactWithModel('gpt-4', ['--encoding', 'o200k_base']);
    expect(report.counter).toBe('tiktoken:o200k_base');
    expect(report.tokenizer).toEqual({ encoding: 'o200k_base', margin: 1 });
  });

  it('counts Gemini and other models with o200k_base and a 1.2 margin, which --margin changes', async () => {
    const exact = await compactWithModel(undefined);
    expect(exact.counter).toBe('tiktoken:o200k_base');
    // (A claude model makes the body Anthropic; the Anthropic test below checks its counter.)
    for (const model of ['gemini-2.5-pro', 'mistral-large-latest']) {
      const report = await compactWithModel(model);
      expect(report.counter).toBe('tiktoken:o200k_base×1.2');
      expect(report.before.tokens).toBeGreaterThan(exact.before.tokens * 1.15);
    }
    const unmargined = await compactWithModel('gemini-2.5-pro', ['--margin', '1']);
    expect(unmargined.counter).toBe('tiktoken:o200k_base');
    expect(unmargined.before.tokens).toBe(exact.before.tokens);
  });

  it('rejects a bad --encoding, --margin and --timeout as usage errors', async () => {
    for (const [flag, value] of [
      ['--encoding', 'p50k_base'],
      ['--margin', '0.5'],
      ['--margin', 'lots'],
      ['--timeout', '0'],
      ['--timeout', '5s'],
    ] as const) {
      const result = await run(['compact', agentSession, '--budget', '8k', flag, value]);
      expect(result.code, `${flag} ${value}`).toBe(2);
      expect(result.stderr).toContain(flag);
    }
  });
});

describe('ctxmem compact --timeout', () => {
  it('gives up on a hanging endpoint after --timeout, once, and finishes offline', async () => {
    let calls = 0;
    // Never answers and ignores the abort signal: the worst endpoint there is.
    const hangingFetch = (async () => {
      calls++;
      return new Promise<Response>(() => {});
    }) as typeof globalThis.fetch;
    const started = Date.now();
    const result = await run(
      ['compact', agentSession, '--budget', '6000', '--model', 'gpt-4o-mini', '--timeout', '200'],
      { env: { OPENAI_API_KEY: 'sk-test' }, fetch: hangingFetch },
    );
    const elapsed = Date.now() - started;
    expect(result.code, result.stderr).toBe(0);
    expect(calls).toBe(1);
    expect(result.stderr).toMatch(/fell back from model:gpt-4o-mini/);
    expect(result.stderr).toMatch(
      /The model endpoint failed once \(.*timed out after 200 ms\); the rest of the run summarized offline/,
    );
    expect(elapsed).toBeLessThan(10_000);
    const output = parseConversation(JSON.parse(result.stdout));
    expect(output.messages.length).toBeGreaterThan(1);
  });
});

describe('ctxmem compact --model against an endpoint with a smaller window', () => {
  it('summarizes a smaller input when the endpoint rejects the prompt as too long', async () => {
    // A server whose window is smaller than the model registry says: it rejects a prompt whose
    // input (counted its own way: characters ÷ 3) and output exceed 4,000 tokens, in vLLM's
    // words (vllm-project/vllm, the OpenAI server's input check), and summarizes the rest.
    const limit = 4_000;
    const accepted: boolean[] = [];
    const vllm = (async (_url: unknown, init?: { body?: unknown }) => {
      const body = JSON.parse(String(init?.body)) as {
        messages: Array<{ content: string }>;
        max_completion_tokens?: number;
        max_tokens?: number;
      };
      const tokens = Math.ceil(body.messages.reduce((sum, m) => sum + m.content.length, 0) / 3);
      const output = body.max_completion_tokens ?? body.max_tokens ?? 0;
      accepted.push(tokens + output <= limit);
      if (tokens + output > limit) {
        return new Response(
          JSON.stringify({
            object: 'error',
            message: `This model's maximum context length is ${limit} tokens. However, your request has ${tokens} input tokens. Please reduce the length of the input messages.`,
            type: 'BadRequestError',
            param: 'input_tokens',
            code: 400,
          }),
          { status: 400 },
        );
      }
      const summary = {
        summary: { goal: ['Deploy the service.'], keyFacts: ['It was deployed.'] },
      };
      return new Response(
        JSON.stringify({ choices: [{ message: { content: JSON.stringify(summary) } }] }),
        { status: 200 },
      );
    }) as typeof globalThis.fetch;
    const result = await run(
      ['compact', agentSession, '--budget', '6000', '--model', 'gpt-4o-mini'],
      { env: { OPENAI_API_KEY: 'sk-test' }, fetch: vllm },
    );
    expect(result.code, result.stderr).toBe(0);
    // Rejected once, then every smaller prompt went through.
    expect(accepted[0]).toBe(false);
    expect(accepted.slice(1).length).toBeGreaterThan(0);
    expect(accepted.slice(1).every(Boolean)).toBe(true);
    // It was not a failure: the summary came from the model, in a smaller window.
    expect(result.stderr).not.toMatch(/The model endpoint failed/);
    expect(result.stdout).toContain('Deploy the service.');
  });
});

describe('ctxmem compact: memory tools in the output', () => {
  it('adds reload_context in the OpenAI format, within the budget', async () => {
    await writeFile(
      join(cli.directory(), 'body.json'),
      JSON.stringify(deployLogBody('openai-chat', { model: 'gpt-4o' })),
    );
    const result = await run(['compact', 'body.json', '--budget', '3000']);
    expect(result.code, result.stderr).toBe(0);
    const output = JSON.parse(result.stdout) as { tools: Array<Record<string, unknown>> };
    expect(result.stdout).toContain('reload_context(');
    expect(output.tools).toHaveLength(2);
    expect(output.tools[1]).toEqual({
      type: 'function',
      function: {
        name: 'reload_context',
        description: expect.stringContaining('offloaded'),
        parameters: expect.objectContaining({ type: 'object', required: ['id'] }),
      },
    });
    const counter = createTokenCounter({ model: 'gpt-4o' });
    const parsed = parseConversation(output);
    expect(
      counter.countMessages(parsed.messages) + countToolDefinitions(output.tools, counter),
    ).toBeLessThanOrEqual(3000);
  });

  it('adds reload_context in the Anthropic format, and not twice', async () => {
    await writeFile(
      join(cli.directory(), 'body.json'),
      JSON.stringify(deployLogBody('anthropic', { model: 'claude-sonnet-4-5' })),
    );
    const first = await run(['compact', 'body.json', '--budget', '3000', '--out', 'once.json']);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain('counted with tiktoken:o200k_base×1.2');
    const once = await readJson<{ tools: Array<Record<string, unknown>> }>('once.json');
    expect(once.tools.map((tool) => tool.name)).toEqual(['read_log', 'reload_context']);
    expect(once.tools[1]).toMatchObject({ input_schema: { type: 'object' } });
    const again = await run(['compact', 'once.json', '--budget', '3000', '--out', 'twice.json']);
    expect(again.code, again.stderr).toBe(0);
    const twice = await readJson<{ tools: unknown[] }>('twice.json');
    expect(twice.tools).toEqual(once.tools);
  });

  it('leaves tools alone with --no-tools, and when nothing was offloaded', async () => {
    const input = JSON.parse(await readFile(agentSession, 'utf8')) as { tools: unknown[] };
    const without = await run(['compact', agentSession, '--budget', '8000', '--no-tools']);
    expect(without.code).toBe(0);
    expect(without.stdout).toContain('reload_context(');
    expect((JSON.parse(without.stdout) as { tools: unknown[] }).tools).toEqual(input.tools);
    const roomy = await run(['compact', agentSession, '--budget', '200k']);
    expect(roomy.stdout).not.toContain('reload_context(');
    expect((JSON.parse(roomy.stdout) as { tools: unknown[] }).tools).toEqual(input.tools);
  });

  it('notes the tool on stderr for a bare messages array, which has no tools field', async () => {
    const body = deployLogBody('openai-chat', { model: 'gpt-4o' });
    await writeFile(join(cli.directory(), 'bare.json'), JSON.stringify(body.messages));
    const result = await run(['compact', 'bare.json', '--budget', '3000']);
    expect(result.code, result.stderr).toBe(0);
    expect(Array.isArray(JSON.parse(result.stdout))).toBe(true);
    expect(result.stderr).toMatch(/refers to reload_context, but a bare messages array/);
  });

  it('leaves a "tools" that is not an array as it is, with a note', async () => {
    const body = { ...deployLogBody('openai-chat', { model: 'gpt-4o' }), tools: { read_log: {} } };
    await writeFile(join(cli.directory(), 'record.json'), JSON.stringify(body));
    const result = await run(['compact', 'record.json', '--budget', '3000']);
    expect(result.code, result.stderr).toBe(0);
    expect((JSON.parse(result.stdout) as { tools: unknown }).tools).toEqual({ read_log: {} });
    expect(result.stderr).toMatch(
      /refers to reload_context, but the body's "tools" is not an array/,
    );
  });
});

describe('ctxmem compact: OpenAI Responses bodies', () => {
  function responsesBody() {
    const payload = `row ${'0123456789 abcdefghij '.repeat(4)}\n`.repeat(600);
    return {
      model: 'gpt-4.1',
      instructions: 'You are an operations agent.',
      input: [
        { role: 'user', content: 'Read the deploy log.' },
        {
          type: 'reasoning',
          id: 'rs_1',
          summary: [{ type: 'summary_text', text: 'Read the log first.' }],
          encrypted_content: 'opaque',
        },
        { type: 'function_call', call_id: 'call_1', name: 'read_log', arguments: '{}' },
        { type: 'function_call_output', call_id: 'call_1', output: payload },
        { role: 'assistant', content: 'The log is long; the deploy succeeded.' },
        { role: 'user', content: 'Which step was slowest?' },
      ],
      tools: [
        {
          type: 'function',
          name: 'read_log',
          description: 'Read a log',
          parameters: { type: 'object' },
          strict: false,
        },
      ],
      max_output_tokens: 2000,
    };
  }

  it('compacts a Responses body from stdin to stdout, in the same format and within the budget', async () => {
    const result = await run(
      ['compact', '-', '--budget', '3000', '--report-json', 'r.json', '--out', '-'],
      {
        stdin: [JSON.stringify(responsesBody())],
      },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('openai-responses');
    const output = JSON.parse(result.stdout) as {
      instructions: string;
      input: Array<Record<string, unknown>>;
      tools: Array<Record<string, unknown>>;
      max_output_tokens: number;
    };
    expect(output.instructions).toBe('You are an operations agent.');
    expect(output.max_output_tokens).toBe(2000);
    expect(output.input.at(-1)).toEqual({ role: 'user', content: 'Which step was slowest?' });
    // The call and its (offloaded) output stay paired, in Responses shape.
    const call = output.input.find((item) => item.type === 'function_call');
    const callOutput = output.input.find((item) => item.type === 'function_call_output');
    expect(call?.call_id).toBe('call_1');
    expect(callOutput?.call_id).toBe('call_1');
    expect(result.stdout).toContain('reload_context(');
    expect(output.tools[1]).toEqual({
      type: 'function',
      name: 'reload_context',
      description: expect.stringContaining('offloaded'),
      parameters: expect.objectContaining({ type: 'object' }),
      strict: false,
    });
    const counter = createTokenCounter({ model: 'gpt-4.1' });
    const parsed = parseConversation(output);
    expect(parsed.format).toBe('openai-responses');
    expect(
      counter.countMessages(parsed.messages) + countToolDefinitions(output.tools, counter),
    ).toBeLessThanOrEqual(3000);
    const report = await readJson<CompactReportJson>('r.json');
    expect(report.format).toBe('openai-responses');
    expect(report.outputTokens).toEqual({
      field: 'max_output_tokens',
      tokens: 2000,
      contextWindow: expect.any(Number),
    });
  });

  it('reloads an offloaded output as a Responses item with reload --format', async () => {
    const body = responsesBody();
    const result = await run(['compact', '-', '--budget', '3000'], {
      stdin: [JSON.stringify(body)],
    });
    expect(result.code, result.stderr).toBe(0);
    const id = /reload_context\(\\"(off_[0-9a-f]+)\\"\)/.exec(result.stdout)?.[1];
    expect(id).toBeDefined();
    const reloaded = await run(['reload', id!, '--format', 'openai-responses']);
    expect(reloaded.code, reloaded.stderr).toBe(0);
    expect(JSON.parse(reloaded.stdout)).toEqual([body.input[3]]);
    const bad = await run(['reload', id!, '--format', 'gemini']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--format must be one of openai-chat, openai-responses/);
  });

  it('counts the instructions: a budget below them is too small', async () => {
    const body = { model: 'gpt-4o', instructions: 'word '.repeat(400), input: 'Hi' };
    const result = await run(['compact', '-', '--budget', '100'], {
      stdin: [JSON.stringify(body)],
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/budget too small/);
  });

  it('keeps a string input a string when it fits', async () => {
    const body = { model: 'gpt-4o', input: 'Hello there' };
    const result = await run(['compact', '-', '--budget', '1000'], {
      stdin: [JSON.stringify(body)],
    });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(body);
  });

  it('warns when the budget and max_output_tokens do not fit the model’s window', async () => {
    const body = { model: 'gpt-4o', input: 'Hello there', max_output_tokens: 16_000 };
    const result = await run(['compact', '-', '--budget', '128k'], {
      stdin: [JSON.stringify(body)],
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/max_output_tokens 16000 is over gpt-4o's context window/);
  });

  it('fails with a message naming the bad item', async () => {
    const body = { input: [{ type: 'function_call', name: 'f', arguments: '{}' }] };
    const result = await run(['compact', '-', '--budget', '1000'], {
      stdin: [JSON.stringify(body)],
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/stdin: input\[0\]\.call_id: expected a string/);
  });
});

describe('ctxmem compact: the shape of the input is the shape of the output', () => {
  /** A tool-using conversation of `rounds` rounds, long enough to be summarized. */
  function toolLoop(rounds: number): Message[] {
    const messages: Message[] = [];
    for (let round = 0; round < rounds; round++) {
      const id = `call_${round}`;
      messages.push(
        {
          role: 'user',
          content: `Question ${round}: ${'what does the build log say? '.repeat(8)}`,
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
              output: { type: 'text', value: `log of round ${round}: ${'step ok; '.repeat(40)}` },
            },
          ],
        },
        { role: 'assistant', content: `Round ${round}: ${'the build passed again. '.repeat(6)}` },
      );
    }
    messages.push({ role: 'user', content: 'So, did anything fail?' });
    return messages;
  }

  // Protection: a bare array is written back bare in every format, the rolling summary included
  // (for Anthropic, whose messages have no system role, as the first user turn). Before, a bare
  // Anthropic array came back as { "messages": [...] }.
  it.each(['openai-chat', 'anthropic', 'openai-responses', 'ai-sdk'] as const)(
    'writes a bare %s array back as a bare array, with the summary in it',
    async (format) => {
      const input = serializeConversation(toolLoop(30), format) as unknown[];
      expect(Array.isArray(input)).toBe(true);
      await writeFile(join(cli.directory(), 'bare.json'), JSON.stringify(input));
      const result = await run(['compact', 'bare.json', '--budget', '2000', '--no-tools']);
      expect(result.code, result.stderr).toBe(0);
      const written = JSON.parse(result.stdout) as unknown;
      expect(Array.isArray(written)).toBe(true);
      expect(result.stdout).toContain(SUMMARY_HEADING);
      const reread = parseConversation(written);
      expect(reread.envelope).toBeUndefined();
      if (format === 'anthropic') {
        expect(reread.messages[0]).toMatchObject({ role: 'user' });
        expect(JSON.stringify(reread.messages[0])).toContain(SUMMARY_HEADING);
      } else {
        expect(reread.format).toBe(format);
      }
    },
  );

  it('rejects a null where a message should be, naming its index', async () => {
    const result = await run(['compact', '-', '--budget', '1000'], {
      stdin: [JSON.stringify([{ role: 'user', content: 'hi' }, null])],
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/stdin: messages\[1\]: expected a message object, got null/);
  });
});

describe('ctxmem compact --help', () => {
  it('documents stdin, the tokenizer, --timeout, --no-tools and the exit codes', async () => {
    const { stdout } = await run(['compact', '--help']);
    for (const text of ['-', '--encoding', '--margin', '--timeout', '--no-tools', 'Exit codes']) {
      expect(stdout).toContain(text);
    }
    expect((await run(['--help'])).stdout).toMatch(/Exit codes: 0 done, 1 failed.*2 usage/);
  });
});

describe('ctxmem compact: a payload far over the budget', () => {
  const base64 = (bytes: number) => seededBase64(bytes, 7);

  it('measures it by a lower bound, fits the budget, and reload gives it back byte for byte', async () => {
    // 400k characters of base64 in one tool result: counted by its floor, never tokenized.
    const payload = base64(300_000);
    const body = {
      model: 'gpt-4o',
      messages: [
        { role: 'system', content: 'You are a coding agent.' },
        { role: 'user', content: 'Read the archive.' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: payload },
      ],
    };
    await writeFile(join(cli.directory(), 'body.json'), JSON.stringify(body));
    const result = await run([
      'compact',
      'body.json',
      '--budget',
      '4000',
      '--out',
      'small.json',
      '--report-json',
      'report.json',
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/tokens\s+≥[\d,]+ → [\d,]+/);
    expect(result.stderr).toContain('(before: at least;');
    const report = await readJson<CompactReportJson>('report.json');
    expect(report.before.tokensIsLowerBound).toBe(true);
    expect(report.report.tokensBeforeIsLowerBound).toBe(true);
    const exact = createTokenCounter({ model: 'gpt-4o' }).countMessages(
      parseConversation(body).messages,
    );
    expect(report.before.tokens).toBeGreaterThan(4_000);
    expect(report.before.tokens).toBeLessThanOrEqual(exact);
    expect(report.after.tokens).toBeLessThanOrEqual(4_000);
    expect(report.offload.ids).toHaveLength(1);
    const reload = await run([
      'reload',
      report.offload.ids[0]!,
      '--offload-dir',
      '.ctxmem/offload',
    ]);
    expect(reload.code, reload.stderr).toBe(0);
    expect(reload.stdout).toBe(`${payload}\n`);
  });
});
