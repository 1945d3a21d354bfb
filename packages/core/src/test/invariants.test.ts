import { describe, expect, it } from 'vitest';
import { createFakeCounter } from '../compression/test-helpers.js';
import { assistant, calls, results, system, user } from '../compression/test-messages.js';
import type { Message } from '../contracts/index.js';
import { checkCompactionInvariants } from './invariants.js';

const counter = createFakeCounter();
const input: Message[] = [
  system('rules'),
  user('first'),
  calls({ id: 'a' }, { id: 'b' }),
  results({ id: 'a', output: 'A' }),
  results({ id: 'b', output: 'B' }),
  assistant('done'),
  user('newest'),
];
const check = (output: Message[], budgetTokens = 10_000) =>
  checkCompactionInvariants(input, output, { budgetTokens, counter }).map((item) => item.invariant);

describe('checkCompactionInvariants', () => {
  it('accepts the input itself and a valid compaction', () => {
    expect(check(input)).toEqual([]);
    const summary: Message = {
      role: 'system',
      content: '## Context Summary',
      ctxmem: { kind: 'summary' },
    };
    expect(check([input[0]!, summary, input[6]!])).toEqual([]);
  });

  it('reports a prompt over budget', () => {
    expect(check(input, 10)).toEqual(['budget']);
  });

  it('reports a missing or changed system message', () => {
    expect(check(input.slice(1))).toContain('system-preserved');
    expect(check([system('other'), ...input.slice(1)])).toContain('system-preserved');
  });

  it('reports a changed newest user message', () => {
    expect(check([...input.slice(0, 6), user('newest!')])).toEqual(['newest-user-verbatim']);
    expect(check(input.slice(0, 6))).toContain('newest-user-verbatim');
  });

  it('reports broken tool pairs', () => {
    expect(check([...input.slice(0, 4), ...input.slice(5)])).toContain('tool-pairing');
    expect(check([input[0]!, input[1]!, input[3]!, input[4]!, input[5]!, input[6]!])).toContain(
      'tool-pairing',
    );
  });

  it('reports tool blocks that do not follow their calls', () => {
    const moved = [input[0]!, input[1]!, input[2]!, input[5]!, input[3]!, input[4]!, input[6]!];
    expect(check(moved)).toContain('order');
  });

  it('reports a non-user first message when the input started with a user message', () => {
    expect(check([input[0]!, input[5]!, input[6]!])).toEqual(['order']);
  });

  it('reports stacked or misplaced summaries', () => {
    const summary: Message = {
      role: 'system',
      content: '## Context Summary',
      ctxmem: { kind: 'summary' },
    };
    expect(check([input[0]!, summary, summary, input[6]!])).toEqual(['summary-placement']);
    expect(check([input[0]!, input[1]!, summary, input[5]!, input[6]!])).toContain(
      'summary-placement',
    );
  });
});
