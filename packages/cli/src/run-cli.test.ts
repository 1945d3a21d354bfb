import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  checkToolPairing,
  countToolDefinitions,
  createTokenCounter,
  parseConversation,
} from '@ctxmem/core';
import { describe, expect, it } from 'vitest';
import type { CompactReportJson } from './index.js';
import { type CliRun, useCliFolder } from './run-cli.test-helper.js';

const examples = fileURLToPath(new URL('../../../examples/conversations/', import.meta.url));
const agentSession = join(examples, 'agent-session.json');
const aiSdkChat = join(examples, 'ai-sdk-chat.json');

const cli = useCliFolder('ctxmem-cli');
const { run } = cli;

/** A failure is exactly one line on stderr, nothing on stdout. */
function expectOneLineFailure(result: CliRun, code: number, pattern: RegExp): void {
  expect(result.code).toBe(code);
  expect(result.stdout).toBe('');
  expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(result.stderr).toMatch(pattern);
  expect(result.stderr).not.toMatch(/\n\s+at /);
}

describe('ctxmem (top level)', () => {
  it('prints the package version', async () => {
    const manifest = JSON.parse(
      await readFile(new URL('../package.json', import.meta.url), 'utf8'),
    ) as { version: string };
    for (const flag of ['--version', '-v']) {
      const result = await run([flag]);
      expect(result).toEqual({ code: 0, stdout: `${manifest.version}\n`, stderr: '' });
    }
  });

  it('prints help for the CLI and for each command', async () => {
    expect((await run(['--help'])).stdout).toMatch(/Usage[\s\S]*compact[\s\S]*inspect/);
    for (const command of ['compact', 'inspect', 'reload', 'mcp']) {
      const viaFlag = await run([command, '--help']);
      expect(viaFlag.code).toBe(0);
      expect(viaFlag.stdout).toContain(`Usage: ctxmem ${command}`);
      expect((await run(['help', command])).stdout).toBe(viaFlag.stdout);
    }
  });

  it('shows the help on stderr with exit code 2 when no command is given', async () => {
    const result = await run([]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('Usage');
  });

  it('rejects an unknown command as a usage error', async () => {
    expectOneLineFailure(await run(['compress', 'x.json']), 2, /unknown command "compress"/);
  });
});

describe('ctxmem compact: usage errors (exit 2)', () => {
  const cases: Array<[string, string[], RegExp]> = [
    ['no file', ['compact', '--budget', '100'], /missing a conversation file/],
    ['two files', ['compact', 'a.json', 'b.json', '--budget', '100'], /takes one <file\.json>/],
    ['no budget', ['compact', 'a.json'], /needs --budget/],
    [
      'a NaN budget',
      ['compact', 'a.json', '--budget', 'NaN'],
      /--budget must be a positive whole number.*"NaN"/,
    ],
    ['a word as budget', ['compact', 'a.json', '--budget', 'lots'], /--budget must be a positive/],
    ['a zero budget', ['compact', 'a.json', '--budget', '0'], /--budget must be a positive.*"0"/],
    [
      'a negative budget',
      ['compact', 'a.json', '--budget=-5'],
      /--budget must be a positive.*"-5"/,
    ],
    [
      'a fractional budget',
      ['compact', 'a.json', '--budget', '1.5'],
      /--budget must be a positive/,
    ],
    ['a budget without a value', ['compact', 'a.json', '--budget'], /--budget.*argument missing/],
    [
      'a target above the budget',
      ['compact', 'a.json', '--budget', '100', '--target', '200'],
      /--target \(200\) must not be above --budget \(100\)/,
    ],
    [
      'an unknown history mode',
      ['compact', 'a.json', '--budget', '100', '--history', 'all'],
      /--history must be one of compressed, recent-only, summary-only, got "all"/,
    ],
    [
      'an unknown flag',
      ['compact', 'a.json', '--budget', '100', '--bugdet', '5'],
      /unknown option '--bugdet'/,
    ],
    [
      'a negative --keep-recent',
      ['compact', 'a.json', '--budget', '100', '--keep-recent=-1'],
      /--keep-recent must be a whole number/,
    ],
    [
      '--keep-recent with summary-only',
      ['compact', 'a.json', '--budget', '100', '--history', 'summary-only', '--keep-recent', '2'],
      /--keep-recent does nothing with --history summary-only/,
    ],
    [
      '--model without OPENAI_API_KEY',
      ['compact', 'a.json', '--budget', '100', '--model', 'gpt-4o-mini'],
      /needs OPENAI_API_KEY/,
    ],
  ];
  for (const [name, argv, pattern] of cases) {
    it(`rejects ${name}`, async () => {
      const result = await run(argv);
      expectOneLineFailure(result, 2, pattern);
      expect(result.stderr).toContain('ctxmem compact --help');
    });
  }
});

describe('ctxmem compact: failures (exit 1)', () => {
  it('reports a missing file', async () => {
    expectOneLineFailure(
      await run(['compact', 'missing.json', '--budget', '100']),
      1,
      /^ctxmem compact: cannot read missing\.json: no such file$/m,
    );
  });

  it('reports a directory given as the file', async () => {
    await mkdir(join(cli.directory(), 'folder.json'));
    expectOneLineFailure(
      await run(['compact', 'folder.json', '--budget', '100']),
      1,
      /cannot read folder\.json: it is a directory/,
    );
  });

  it('reports invalid JSON with its line and column', async () => {
    await writeFile(
      join(cli.directory(), 'broken.json'),
      '[\n  {"role": "user" "content": "hi"}\n]',
    );
    expectOneLineFailure(
      await run(['compact', 'broken.json', '--budget', '100']),
      1,
      /broken\.json is not valid JSON: Expected ',' or '}' after property value \(line 2, column 19\)/,
    );
  });

  it('reports a file cut short and an empty file', async () => {
    await writeFile(join(cli.directory(), 'short.json'), '[{"role": "user", ');
    expectOneLineFailure(
      await run(['compact', 'short.json', '--budget', '100']),
      1,
      /short\.json is not valid JSON: .*\(line 1, column 19\)/,
    );
    await writeFile(join(cli.directory(), 'empty.json'), '');
    expectOneLineFailure(
      await run(['compact', 'empty.json', '--budget', '100']),
      1,
      /empty\.json is not valid JSON: Unexpected end of JSON input \(line 1, column 1\)/,
    );
  });

  it('reports an unknown format', async () => {
    await writeFile(join(cli.directory(), 'other.json'), JSON.stringify({ rows: [1, 2, 3] }));
    expectOneLineFailure(
      await run(['compact', 'other.json', '--budget', '100']),
      1,
      /^ctxmem compact: other\.json: /m,
    );
  });

  it('reports a malformed message with the file and where it is', async () => {
    await writeFile(
      join(cli.directory(), 'bad.json'),
      JSON.stringify([
        { role: 'user', content: 'hi' },
        { role: 'tool', content: 'x' },
      ]),
    );
    const result = await run(['compact', 'bad.json', '--budget', '100']);
    expectOneLineFailure(
      result,
      1,
      /^ctxmem compact: invalid message: bad\.json: .*messages\[1\]/m,
    );
    expect(result.stderr.match(/messages\[1\]/g)).toHaveLength(1);
  });

  it('reports an impossible budget with what it would take', async () => {
    const result = await run(['compact', agentSession, '--budget', '50']);
    expectOneLineFailure(result, 1, /^ctxmem compact: budget too small: .*\b50\b.*\b\d{3}\b/m);
  });

  it('reports an output file that cannot be written', async () => {
    const result = await run([
      'compact',
      aiSdkChat,
      '--budget',
      '100k',
      '--out',
      join(cli.directory(), 'no-such-folder', 'out.json'),
    ]);
    expectOneLineFailure(result, 1, /cannot write .*out\.json: no such file/);
  });

  it('prints the stack trace with CTXMEM_DEBUG=1', async () => {
    const result = await run(['compact', 'missing.json', '--budget', '100'], {
      env: { CTXMEM_DEBUG: '1' },
    });
    expect(result.code).toBe(1);
    expect(result.stderr.split('\n').length).toBeGreaterThan(2);
    expect(result.stderr).toMatch(/\n\s+at /);
  });
});

describe('ctxmem compact', () => {
  it('compacts the bundled agent session within the budget, in the same format and envelope', async () => {
    const input = JSON.parse(await readFile(agentSession, 'utf8')) as Record<string, unknown>;
    const result = await run(['compact', agentSession, '--budget', '8000']);
    expect(result.code).toBe(0);

    const output = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(Object.keys(output).sort()).toEqual(Object.keys(input).sort());
    expect(output.model).toEqual(input.model);
    // The previews ask for reload_context, so its definition joins the body's own tools.
    expect(result.stdout).toContain('reload_context(');
    expect(output.tools).toEqual([
      ...(input.tools as unknown[]),
      {
        type: 'function',
        function: expect.objectContaining({
          name: 'reload_context',
          parameters: expect.any(Object),
        }),
      },
    ]);
    expect(result.stderr).toContain('Added the reload_context tool definition');
    const parsed = parseConversation(output);
    expect(parsed.format).toBe('openai-chat');
    expect(createTokenCounter().countMessages(parsed.messages)).toBeLessThanOrEqual(8000);
    // The newest user message (the question to answer) survives verbatim.
    const inputMessages = input.messages as Array<{ role: string; content: unknown }>;
    const outputMessages = output.messages as Array<{ role: string; content: unknown }>;
    expect(outputMessages.at(-1)).toEqual(inputMessages.at(-1));

    expect(result.stderr).toMatch(/tokens\s+[\d,]+ → [\d,]+\s+\(budget 8,000/);
    expect(result.stderr).toMatch(/summarizer\s+extractive, \d+ calls?/);
    expect(result.stderr).toMatch(/duration\s+compaction [\d,]+ ms/);
    expect(result.stderr).toContain('Strategies');
    expect(result.stderr).toMatch(/Window composition[\s\S]*before[\s\S]*after/);
    for (const label of ['system', 'summary', 'tool calls', 'tool results', 'user', 'assistant']) {
      expect(result.stderr).toContain(`  ${label} `);
    }
  });

  it('writes --out and --report-json, and offloads next to --out so `reload` finds the payloads', async () => {
    const result = await run([
      'compact',
      agentSession,
      '--budget',
      '8k',
      '--target',
      '6000',
      '--keep-recent',
      '2',
      '--out',
      'compacted.json',
      '--report-json',
      'report.json',
    ]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('Wrote compacted.json');

    const counter = createTokenCounter();
    const compacted = parseConversation(
      JSON.parse(await readFile(join(cli.directory(), 'compacted.json'), 'utf8')),
    );
    const written = JSON.parse(await readFile(join(cli.directory(), 'compacted.json'), 'utf8')) as {
      tools: unknown[];
    };
    // The budget holds the body's tools and the reload_context definition that was added.
    const toolTokens = countToolDefinitions(written.tools, counter);
    expect(toolTokens).toBeGreaterThan(
      countToolDefinitions(
        (JSON.parse(await readFile(agentSession, 'utf8')) as { tools: unknown[] }).tools,
        counter,
      ),
    );
    const tokensAfter = counter.countMessages(compacted.messages) + toolTokens;

    const report = JSON.parse(
      await readFile(join(cli.directory(), 'report.json'), 'utf8'),
    ) as CompactReportJson;
    expect(report).toMatchObject({
      file: agentSession,
      format: 'openai-chat',
      history: 'compressed',
      budgetTokens: 8000,
      toolTokens,
      addedTools: ['reload_context'],
      tokenizer: { model: 'gpt-4o-2024-08-06', margin: 1 },
      targetTokens: 6000,
      settings: { minMessagesToKeep: 2 },
      counter: counter.name,
      summarizer: 'extractive',
      after: { messages: compacted.messages.length, tokens: tokensAfter },
    });
    expect(report.before.tokens).toBeGreaterThan(40_000);
    expect(report.after.tokens).toBeLessThanOrEqual(8000);
    expect(report.report.tokensBefore).toBeGreaterThan(report.report.tokensAfter);
    expect(report.report.strategies.some((strategy) => strategy.applied)).toBe(true);
    expect(Object.values(report.after.composition).reduce((sum, value) => sum + value, 0)).toBe(
      tokensAfter - toolTokens - counter.promptOverhead,
    );
    expect(report.offload.dir).toBe(join(cli.directory(), '.ctxmem', 'offload'));
    expect(report.offload.ids.length).toBeGreaterThan(0);
    expect(await readdir(report.offload.dir)).not.toHaveLength(0);

    // Every id printed resolves, byte-identically, to a message of the original conversation.
    const original = parseConversation(JSON.parse(await readFile(agentSession, 'utf8'))).messages;
    for (const id of report.offload.ids) {
      const reloaded = await run(['reload', id, '--json']);
      expect(reloaded.code).toBe(0);
      const record = JSON.parse(reloaded.stdout) as { id: string; message: unknown };
      expect(record.id).toBe(id);
      expect(original).toContainEqual(record.message);
    }
    const largest = await Promise.all(
      report.offload.ids.map(async (id) => (await run(['reload', id])).stdout.length),
    );
    expect(Math.max(...largest)).toBeGreaterThan(10_000);
    expectOneLineFailure(
      await run(['reload', 'off_0000000000000000']),
      1,
      /no offloaded payload "off_0000000000000000" in \.ctxmem\/offload/,
    );
    expectOneLineFailure(await run(['reload', '../etc/passwd']), 1, /invalid offload id/i);
  });

  it('maps --keep-recent to recentRounds for the recent-only history', async () => {
    const result = await run([
      'compact',
      agentSession,
      '--budget',
      '12000',
      '--history',
      'recent-only',
      '--keep-recent',
      '1',
      '--report-json',
      'report.json',
      '--offload-dir',
      'offloads',
    ]);
    expect(result.code).toBe(0);
    const report = JSON.parse(
      await readFile(join(cli.directory(), 'report.json'), 'utf8'),
    ) as CompactReportJson;
    expect(report.history).toBe('recent-only');
    expect(report.settings).toEqual({ recentRounds: 1 });
    expect(report.offload.dir).toBe(join(cli.directory(), 'offloads'));
    expect(report.after.tokens).toBeLessThanOrEqual(12_000);
  });

  it('keeps the AI SDK format for AI SDK input', async () => {
    const result = await run(['compact', aiSdkChat, '--budget', '100000']);
    expect(result.code).toBe(0);
    const output = JSON.parse(result.stdout) as unknown;
    expect(Array.isArray(output)).toBe(true);
    expect(parseConversation(output).format).toBe('ai-sdk');
    // Already within the target: nothing to do, and the conversation comes back unchanged.
    expect(output).toEqual(JSON.parse(await readFile(aiSdkChat, 'utf8')));
    expect(result.stderr).toMatch(/No strategy ran|already/);
  });

  it('summarizes through the OpenAI-compatible endpoint with --model', async () => {
    const answer = {
      summary: {
        goal: ['Fix the failing CI tests and the duplicate postings in ledger-sync.'],
        background: [],
        keyFacts: ['MODEL-SUMMARY-MARKER: duplicates come from retried batches.'],
        constraints: ['Never touch prod; prefer Python for scripts.'],
        decisions: ['Timezone-aware datetimes: Berlin for the business day, UTC elsewhere.'],
        todos: [],
        snippets: [],
      },
      memories: [{ content: 'Mia prefers Python for scripts.', type: 'preference', tags: [] }],
    };
    let calls = 0;
    const fetch = (async () => {
      calls++;
      return new Response(
        JSON.stringify({ choices: [{ message: { content: JSON.stringify(answer) } }] }),
        { status: 200 },
      );
    }) as typeof globalThis.fetch;
    const result = await run(
      [
        'compact',
        agentSession,
        '--budget',
        '6000',
        '--model',
        'gpt-4o-mini',
        '--history',
        'summary-only',
        '--report-json',
        'report.json',
      ],
      { env: { OPENAI_API_KEY: 'sk-test' }, fetch },
    );
    expect(result.code).toBe(0);
    expect(calls).toBeGreaterThan(0);
    expect(result.stderr).toMatch(
      new RegExp(`summarizer\\s+model:gpt-4o-mini>extractive, ${calls} calls?\\n`),
    );
    expect(result.stdout).toContain('MODEL-SUMMARY-MARKER');
    const report = JSON.parse(
      await readFile(join(cli.directory(), 'report.json'), 'utf8'),
    ) as CompactReportJson;
    expect(report.summarizer).toBe('model:gpt-4o-mini>extractive');
    expect(report.report.summarizerCalls).toBe(calls);
    expect(report.cards).toContainEqual(expect.objectContaining({ type: 'preference' }));
  });

  it('summarizes through the OpenAI-compatible endpoint with --model, and falls back when it fails', async () => {
    const requests: Array<{ url: string; authorization: string | undefined }> = [];
    const failingFetch = (async (url: string | URL | Request, init?: RequestInit) => {
      requests.push({
        url: String(url),
        authorization: (init?.headers as Record<string, string> | undefined)?.authorization,
      });
      return new Response(JSON.stringify({ error: { message: 'overloaded' } }), { status: 503 });
    }) as typeof globalThis.fetch;
    const result = await run(
      [
        'compact',
        agentSession,
        '--budget',
        '8000',
        '--model',
        'gpt-4o-mini',
        '--history',
        'summary-only',
      ],
      {
        env: { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' },
        fetch: failingFetch,
      },
    );
    expect(result.code).toBe(0);
    expect(requests.length).toBeGreaterThan(0);
    expect(requests[0]).toEqual({
      url: 'http://127.0.0.1:9/v1/chat/completions',
      authorization: 'Bearer sk-test',
    });
    expect(result.stderr).toMatch(/fell back from/);
    expect(result.stderr).not.toContain('sk-test');
    const output = parseConversation(JSON.parse(result.stdout));
    expect(
      createTokenCounter({ model: 'gpt-4o-mini' }).countMessages(output.messages),
    ).toBeLessThanOrEqual(8000);
  });
});

describe('ctxmem inspect', () => {
  it('shows the composition, the largest messages and a dry run at the window budget', async () => {
    const result = await run(['inspect', agentSession, '--context-window', '32000', '--top', '3']);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(/format\s+openai-chat, 37 messages, \d+ tool calls/);
    expect(result.stdout).toMatch(
      /window\s+32,000 \(--context-window\); budget [\d,]+, trigger [\d,]+, target [\d,]+/,
    );
    expect(result.stdout).toMatch(/Composition[\s\S]*tool results\s+[\d,]+\s+\d+%\s+█/);
    const largest = result.stdout.split('Largest messages\n')[1]!.split('\n\n')[0]!.split('\n');
    expect(largest).toHaveLength(4); // header + 3
    expect(largest[1]).toMatch(/^\s+\d+\s+tool\s+[\d,]+/);
    expect(result.stdout).toMatch(/Dry run: compact --budget \d+ --target \d+/);
    expect(result.stdout).toMatch(/would fire: [a-z-]+(, [a-z-]+)*; tokens after [\d,]+/);
    // Dry run: nothing written.
    expect(await readdir(cli.directory())).toEqual([]);
  });

  it('takes the window from --model and says when nothing would fire', async () => {
    const result = await run(['inspect', aiSdkChat, '--model', 'gpt-4o']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/window\s+128,000 \(gpt-4o\)/);
    expect(result.stdout).toMatch(/below the trigger/);
    expect(result.stdout).toMatch(/No strategy ran/);
  });

  it('reports a window too small for the conversation as a finding, not a failure', async () => {
    const result = await run(['inspect', agentSession, '--context-window', '200']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/overflowing/);
    expect(result.stdout).toMatch(
      /cannot fit: the smallest valid prompt needs [\d,]+ tokens, the budget is [\d,]+/,
    );
  });

  it('rejects an unknown model without --context-window, and bad flags', async () => {
    expectOneLineFailure(
      await run(['inspect', aiSdkChat, '--model', 'my-local-model']),
      2,
      /unknown context window for model "my-local-model"; pass --context-window/,
    );
    expectOneLineFailure(
      await run(['inspect', aiSdkChat, '--context-window', '0']),
      2,
      /--context-window must be a positive/,
    );
    expectOneLineFailure(await run(['inspect']), 2, /missing a conversation file/);
    expectOneLineFailure(await run(['inspect', 'nope.json']), 1, /cannot read nope\.json/);
  });
});

describe('ctxmem compact on whole request bodies', () => {
  const tools = Array.from({ length: 12 }, (_, index) => ({
    name: `tool_${index}`,
    description: `Tool number ${index}, which does something with a long explanation. `.repeat(6),
    input_schema: { type: 'object', properties: { query: { type: 'string' } } },
  }));
  const history = Array.from({ length: 40 }, (_, index) => [
    { role: 'user', content: `Question ${index}: ${'what about the deployment plan '.repeat(12)}` },
    {
      role: 'assistant',
      content: [
        { type: 'tool_use', id: `toolu_${index}`, name: 'tool_1', input: { query: `q${index}` } },
      ],
    },
    {
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: `toolu_${index}`,
          content: `result ${index} `.repeat(60),
        },
      ],
    },
    { role: 'assistant', content: `Answer ${index}.` },
  ]).flat();

  it('counts an Anthropic body’s system and tools, and keeps the system at the top level', async () => {
    const file = join(cli.directory(), 'anthropic.json');
    const request = {
      model: 'claude-sonnet-4-5',
      max_tokens: 1024,
      system: 'You are an operations agent.',
      tools,
      messages: [...history, { role: 'user', content: 'Which host runs the API?' }],
    };
    await writeFile(file, JSON.stringify(request));
    const result = await run([
      'compact',
      'anthropic.json',
      '--budget',
      '6000',
      '--out',
      'out.json',
    ]);
    expect(result.code).toBe(0);
    const written = JSON.parse(await readFile(join(cli.directory(), 'out.json'), 'utf8')) as {
      system: string;
      tools: unknown[];
      messages: Array<{ role: string }>;
    };
    expect(written.system.startsWith('You are an operations agent.')).toBe(true);
    expect(written.messages.every((message) => message.role !== 'system')).toBe(true);
    expect(written.tools).toEqual(tools);
    const counter = createTokenCounter();
    const toolTokens = tools.reduce(
      (sum, tool) => sum + counter.countText(JSON.stringify(tool)) + 10,
      0,
    );
    const messageTokens = counter.countMessages(parseConversation(written).messages);
    expect(toolTokens + messageTokens).toBeLessThanOrEqual(6000);
  });

  it('fails with one line and the numbers when the tools alone exceed the budget', async () => {
    await writeFile(
      join(cli.directory(), 'tools.json'),
      JSON.stringify({ model: 'gpt-4o', tools, messages: [{ role: 'user', content: 'hi' }] }),
    );
    expectOneLineFailure(
      await run(['compact', 'tools.json', '--budget', '500']),
      1,
      /12 tool definitions alone take \d+ tokens of the budget of 500/,
    );
  });

  it('fails instead of emptying the history when the system and newest message cannot fit', async () => {
    await writeFile(
      join(cli.directory(), 'small.json'),
      JSON.stringify([
        { role: 'system', content: 'Rules. '.repeat(100) },
        { role: 'user', content: 'old' },
        { role: 'assistant', content: 'old answer' },
        { role: 'user', content: 'The newest question. '.repeat(40) },
      ]),
    );
    const result = await run(['compact', 'small.json', '--budget', '225']);
    expect(result.code).not.toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/225/);
  });

  it('moves a late tool result up to its call in an OpenAI body, and rejects a malformed one', async () => {
    await writeFile(
      join(cli.directory(), 'late.json'),
      JSON.stringify({
        model: 'gpt-4o',
        messages: [
          { role: 'user', content: 'Weather?' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              { id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{}' } },
            ],
          },
          { role: 'assistant', content: 'Still checking.' },
          { role: 'tool', tool_call_id: 'call_1', content: 'Sunny' },
          { role: 'user', content: 'So?' },
        ],
      }),
    );
    const result = await run([
      'compact',
      'late.json',
      '--budget',
      '4000',
      '--out',
      'late-out.json',
    ]);
    expect(result.code).toBe(0);
    const written = JSON.parse(await readFile(join(cli.directory(), 'late-out.json'), 'utf8')) as {
      messages: Array<{ role: string; tool_call_id?: string }>;
    };
    expect(written.messages.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
      'user',
    ]);
    expect(checkToolPairing(parseConversation(written).messages)).toEqual([]);

    await writeFile(
      join(cli.directory(), 'nan.json'),
      '{"messages":[{"role":"user","content":[{"type":"wat"}]}]}',
    );
    const rejected = await run(['compact', 'nan.json', '--budget', '4000']);
    expect(rejected.code).not.toBe(0);
    expect(rejected.stdout).toBe('');
  });
});
