import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHashingEmbedder, type Embedder } from '@ctxmem/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type CliContext, runCli } from '../index.js';
import { OptionalPackageMissingError } from '../optional-package-missing-error.js';
import type { MemorySearchLineJson } from './index.js';
import { createCliEmbedder, EmbedderSetupError } from './memory-embedder.js';

let directory: string;

beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), 'ctxmem-memory-embedder-'));
});

afterEach(async () => {
  await rm(directory, { recursive: true, force: true });
});

async function run(argv: string[], env: CliContext['env'] = {}) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) } as CliContext['stderr'],
    cwd: directory,
    env,
  });
  return { code, stdout, stderr };
}

function notFound(name: string): Error {
  return Object.assign(new Error(`Cannot find package '${name}' imported from ctxmem`), {
    code: 'ERR_MODULE_NOT_FOUND',
  });
}

describe('ctxmem memory search retrieval flags', () => {
  it('searches with --fusion and --sequence-context, which finds the turn after a match', async () => {
    const turns = [
      'Anna: How long have you two lived in Porto?',
      'Ben: Six years now, since the summer of 2019!',
      'Anna: Did you see the match last night?',
      'Ben: No, I was repairing my bicycle.',
    ];
    for (const text of turns) {
      expect((await run(['memory', 'add', '--store', 'cards', '--text', text])).code).toBe(0);
    }
    const search = async (...flags: string[]) => {
      const result = await run([
        'memory',
        'search',
        '--store',
        'cards',
        '--query',
        'how long lived Porto',
        '--json',
        ...flags,
      ]);
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      return (JSON.parse(result.stdout) as MemorySearchLineJson).results.map((hit) => hit.content);
    };
    expect(await search()).not.toContain(turns[1]);
    expect((await search('--sequence-context')).slice(0, 2)).toEqual([turns[0], turns[1]]);
    expect((await search('--fusion', 'rrf', '--embedder', 'hashing'))[0]).toBe(turns[0]);
    expect((await search('--fusion', 'weighted:0.5'))[0]).toBe(turns[0]);
  });

  it('rejects bad retrieval flags as usage errors', async () => {
    for (const [flags, pattern] of [
      [['--embedder', 'bert'], /--embedder must be one of hashing, local, openai/],
      [['--fusion', 'weighted:2'], /--fusion must be rrf, weighted or weighted:/],
      [['--fusion', 'rrf:0.5'], /--fusion must be/],
      [['--embedding-model', 'text-embedding-3-small'], /add --embedder openai/],
      [['--embedder', 'openai'], /needs OPENAI_API_KEY/],
    ] as const) {
      const result = await run(['memory', 'search', '--store', '.', '--query', 'x', ...flags]);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr.trimEnd()).toMatch(pattern);
      expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
    }
  });
});

describe('createCliEmbedder', () => {
  const env = { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: 'http://localhost:1234/v1' };

  it('uses the built-in embedder for hashing and imports the local one only when asked', async () => {
    const imported: string[] = [];
    const local = createHashingEmbedder({ dimensions: 8 });
    const importModule = async (name: string) => {
      imported.push(name);
      return { createLocalEmbedder: () => local };
    };
    expect(
      await createCliEmbedder(
        { embedder: 'hashing', sequenceContext: false },
        { env, importModule },
      ),
    ).toBeUndefined();
    expect(imported).toEqual([]);
    expect(
      await createCliEmbedder({ embedder: 'local', sequenceContext: false }, { env, importModule }),
    ).toBe(local);
    expect(imported).toEqual(['@ctxmem/local-embedder']);
  });

  it('names every missing optional package in a typed error', async () => {
    const local = await createCliEmbedder(
      { embedder: 'local', sequenceContext: false },
      { env, importModule: async (name) => Promise.reject(notFound(name)) },
    ).catch((error: unknown) => error);
    expect(OptionalPackageMissingError.isInstance(local)).toBe(true);
    expect((local as Error).message).toContain('npm install @ctxmem/local-embedder');

    const openai = await createCliEmbedder(
      { embedder: 'openai', sequenceContext: false },
      {
        env,
        importModule: async (name) => (name === 'ai' ? {} : Promise.reject(notFound(name))),
      },
    ).catch((error: unknown) => error);
    expect(OptionalPackageMissingError.isInstance(openai)).toBe(true);
    expect((openai as OptionalPackageMissingError).packages).toEqual([
      '@ctxmem/ai-sdk',
      '@ai-sdk/openai',
    ]);
  });

  it('builds an OpenAI-compatible embedder from the environment, sized by one probe', async () => {
    const settings: unknown[] = [];
    const built: unknown[] = [];
    const importModule = async (name: string) => {
      if (name === '@ai-sdk/openai') {
        return {
          createOpenAI: (options: unknown) => {
            settings.push(options);
            return { embedding: (modelId: string) => ({ modelId }) };
          },
        };
      }
      if (name === 'ai') return { embed: async () => ({ embedding: [0.1, 0.2, 0.3] }) };
      return {
        aiSdkEmbedder: (model: unknown, options: { dimensions: number; id: string }): Embedder => {
          built.push({ model, ...options });
          return createHashingEmbedder({ dimensions: options.dimensions });
        },
      };
    };
    const embedder = await createCliEmbedder(
      { embedder: 'openai', embeddingModel: 'nomic-embed-text', sequenceContext: false },
      { env, importModule },
    );
    expect(embedder?.dimensions).toBe(3);
    expect(settings).toEqual([{ apiKey: 'sk-test', baseURL: 'http://localhost:1234/v1' }]);
    expect(built).toEqual([
      {
        model: { modelId: 'nomic-embed-text' },
        dimensions: 3,
        id: 'openai-compatible:http://localhost:1234/v1:nomic-embed-text:3',
      },
    ]);

    const failing = await createCliEmbedder(
      { embedder: 'openai', sequenceContext: false },
      {
        env,
        importModule: async (name) =>
          name === 'ai'
            ? {
                embed: async () => {
                  throw new Error('401 invalid key');
                },
              }
            : importModule(name),
      },
    ).catch((error: unknown) => error);
    expect(EmbedderSetupError.isInstance(failing)).toBe(true);
    expect((failing as Error).message).toContain('401 invalid key');
    expect((failing as Error).message).not.toContain('sk-test');
  });
});
