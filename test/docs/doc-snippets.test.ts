import { describe, expect, it } from 'vitest';
import { checkSnippets, extractSnippets, findReadmes } from '../../scripts/check-doc-snippets.js';

const markdown = [
  '# Title', // 1
  '', // 2
  '```ts', // 3
  "const count: number = 'three';", // 4
  '```', // 5
  '', // 6
  '```ts partial', // 7
  'useSomethingUndeclared();', // 8
  '```', // 9
  '<!-- snippet: partial (an overview) -->', // 10
  '```typescript', // 11
  'alsoUndeclared();', // 12
  '```', // 13
  '```bash', // 14
  'echo not typescript', // 15
  '```', // 16
  '```ts', // 17
  "import { createTokenCounter } from '@ctxmem/core';", // 18
  "console.log(createTokenCounter({ model: 'gpt-4' }).name);", // 19
  '```', // 20
].join('\n');

describe('the README snippet check', () => {
  it('finds ts and typescript blocks with their README line, and which are marked partial', () => {
    const snippets = extractSnippets(markdown, 'README.md');
    expect(snippets.map(({ line, partial }) => ({ line, partial }))).toEqual([
      { line: 4, partial: false },
      { line: 8, partial: true },
      { line: 12, partial: true },
      { line: 18, partial: false },
    ]);
  });

  it('reports a block that does not compile at its README line, and passes one that does', () => {
    const snippets = extractSnippets(markdown, 'README.md').filter((snippet) => !snippet.partial);
    const problems = checkSnippets(snippets);
    expect(problems.map((problem) => problem.location)).toEqual(['README.md:4:7']);
    expect(problems[0]?.message).toMatch(/not assignable to type 'number'/);
  });

  it('covers the root README and every package README, core included', () => {
    const readmes = findReadmes();
    expect(readmes).toContain('README.md');
    for (const name of ['core', 'cli', 'ai-sdk', 'langchain', 'hnswlib', 'postgres', 'redis']) {
      expect(readmes).toContain(`packages/${name}/README.md`);
    }
  });
});
