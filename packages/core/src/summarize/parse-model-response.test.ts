import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { StructuredSummary } from '../contracts/index.js';
import {
  emptySections,
  parseModelResponse,
  parseRenderedSummary,
  renderSummary,
  SUMMARY_HEADING,
} from './index.js';

const answer = {
  summary: {
    goal: ['Ship v1'],
    background: [],
    keyFacts: ['API at https://api.example.com/v2'],
    constraints: ['Never log tokens'],
    decisions: ['Use Postgres'],
    todos: ['Write the migration'],
    snippets: ['psql -f schema.sql'],
  },
  memories: [
    { content: 'The user deploys on Fridays.', type: 'fact', tags: ['deploy'], source: 2 },
    { content: 'Use Postgres for storage.', type: 'decision', tags: 'db, storage' },
    { content: 'Odd type', type: 'opinion' },
    { content: '   ' },
  ],
};

describe('parseModelResponse', () => {
  it('reads the sections and the memories of a JSON answer', () => {
    const parsed = parseModelResponse(JSON.stringify(answer), new Map([[2, 'msg-2']]));
    expect(parsed.structured).toBe(true);
    expect(parsed.summary.sections).toEqual(answer.summary);
    expect(parsed.cards).toEqual([
      { content: 'The user deploys on Fridays.', type: 'fact', tags: ['deploy'], source: 'msg-2' },
      { content: 'Use Postgres for storage.', type: 'decision', tags: ['db', 'storage'] },
      { content: 'Odd type', type: 'fact' },
    ]);
  });

  it('finds the object inside a code fence or surrounded by text, with trailing commas', () => {
    const fenced = `Here you go:\n\`\`\`json\n${JSON.stringify(answer)}\n\`\`\`\nHope it helps.`;
    expect(parseModelResponse(fenced).summary.sections.decisions).toEqual(['Use Postgres']);
    const chatty = `Sure! {"summary": {"decisions": ["Use Postgres",], "todos": ["Migrate"],},} Done.`;
    const parsed = parseModelResponse(chatty);
    expect(parsed.structured).toBe(true);
    expect(parsed.summary.sections.decisions).toEqual(['Use Postgres']);
    expect(parsed.summary.sections.todos).toEqual(['Migrate']);
  });

  it('accepts top-level sections, aliases and string bullets', () => {
    const parsed = parseModelResponse(
      JSON.stringify({ key_facts: '- Port 5432\n- Host db.internal', next_steps: ['Deploy'] }),
    );
    expect(parsed.summary.sections.keyFacts).toEqual(['Port 5432', 'Host db.internal']);
    expect(parsed.summary.sections.todos).toEqual(['Deploy']);
  });

  it('keeps the raw text as freeText when there is no usable JSON', () => {
    const raw = 'The user wants a CSV converter; we chose TypeScript. {not json';
    const parsed = parseModelResponse(raw);
    expect(parsed.structured).toBe(false);
    expect(parsed.summary).toEqual({ sections: emptySections(), freeText: raw });
    expect(parsed.cards).toEqual([]);
  });

  it('reads a Markdown summary answer into sections instead of nesting its heading', () => {
    const markdown = `${SUMMARY_HEADING}\n\n### Decisions\n- Use Postgres\n\nAnything else is free text.`;
    const parsed = parseModelResponse(markdown);
    expect(parsed.summary.sections.decisions).toEqual(['Use Postgres']);
    expect(parsed.summary.freeText).toBe('Anything else is free text.');
    expect(renderSummary(parsed.summary).split(SUMMARY_HEADING)).toHaveLength(2);
  });
});

describe('parseRenderedSummary', () => {
  it('gives back the summary renderSummary rendered', () => {
    const line = fc
      .string({ minLength: 1, maxLength: 40 })
      .map((text) => text.replace(/\s+/g, ' ').trim())
      .filter((text) => text !== '' && !text.startsWith('#') && !text.startsWith('`'));
    const snippet = fc
      .array(line, { minLength: 1, maxLength: 3 })
      .map((lines) => lines.join('\n'))
      .filter((text) => !text.split('\n').some((part) => part.trim() === '```'));
    const section = fc.array(line, { maxLength: 4 });
    fc.assert(
      fc.property(
        fc.record({
          goal: section,
          background: section,
          keyFacts: section,
          constraints: section,
          decisions: section,
          todos: section,
          snippets: fc.array(snippet, { maxLength: 3 }),
        }),
        fc.option(
          line.filter((text) => !text.startsWith('- ')),
          { nil: undefined },
        ),
        (sections, freeText) => {
          const summary: StructuredSummary = freeText ? { sections, freeText } : { sections };
          expect(parseRenderedSummary(renderSummary(summary))).toEqual(summary);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('treats text without the summary shape as free text', () => {
    expect(parseRenderedSummary('Just a paragraph.')).toEqual({
      sections: emptySections(),
      freeText: 'Just a paragraph.',
    });
  });
});
