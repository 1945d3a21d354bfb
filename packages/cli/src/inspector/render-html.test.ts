import { createTokenCounter } from '@ctxmem/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { agentConversation } from './fixture.test-helper.js';
import {
  diffSummaries,
  escapeHtml,
  type Inspection,
  inspectConversation,
  renderInspectorHtml,
} from './index.js';

let inspection: Inspection;
let html: string;

beforeAll(async () => {
  inspection = await inspectConversation({
    messages: agentConversation(),
    counter: createTokenCounter(),
    contextWindow: 6_000,
    title: 'fixture <b>session</b>',
  });
  html = renderInspectorHtml(inspection);
});

describe('escapeHtml', () => {
  it('escapes the five characters that can end text or an attribute', () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe(
      '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;',
    );
  });
});

describe('renderInspectorHtml', () => {
  it('shows one timeline row per compaction, as many as the replay ran', () => {
    const compactions = inspection.calls.filter((call) => call.compaction).length;
    // The fixture outgrows the 6,000-token window every other call once its logs pile up.
    expect(compactions).toBe(7);
    expect(html.match(/data-compaction="/g)).toHaveLength(7);
    expect(html).toContain('<span id="compaction-count">7</span>');
    expect(html.match(/<details class="call"/g)).toHaveLength(inspection.calls.length);
  });

  it('renders hostile markup in messages and titles as text', () => {
    expect(html).not.toContain('<script>');
    expect(html).not.toContain('<img');
    expect(html).not.toMatch(/<b>session/);
    expect(html).toContain('&lt;script&gt;window.__xss = 1&lt;/script&gt;');
    expect(html).toContain('&quot;&gt;&lt;img src=x onerror=&quot;window.__xss = 2&quot;&gt;');
    // Every tag in the page is one the renderer writes.
    const allowed = new Set(
      'a body details div h1 h2 h4 head header html meta p pre section span strong style summary table tbody td th thead title tr'.split(
        ' ',
      ),
    );
    const tags = new Set([...html.matchAll(/<\/?([a-z0-9]+)/gi)].map((match) => match[1]!));
    expect([...tags].filter((tag) => !allowed.has(tag))).toEqual([]);
    expect(tags.has('script')).toBe(false);
    expect(tags.has('img')).toBe(false);
  });

  it('is self-contained: a policy that forbids scripts and network, no outside address', () => {
    expect(html).toContain(
      '<meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;; style-src &#39;unsafe-inline&#39;',
    );
    expect(html).not.toMatch(/\b(src|href)="(https?:)?\/\//);
    expect(html).not.toMatch(/@import|url\(/);
  });

  it('keeps every offloaded original, expandable, beside the preview left in the prompt', () => {
    expect(inspection.offloads.length).toBeGreaterThan(0);
    for (const offload of inspection.offloads) {
      expect(offload.missing).toBeUndefined();
      expect(html).toContain(`<details class="offload" id="offload-${offload.id}"`);
      expect(offload.preview).toContain(offload.id);
    }
    const first = inspection.offloads[0]!;
    expect(first.original).toContain('line 159');
    expect(html).toContain(escapeHtml(first.original.split('\n')[5]!));
  });

  it('shows the rolling summary with a diff and the composition against the budget', () => {
    const summarized = inspection.calls.filter((call) => call.summaryChanged);
    expect(summarized.length).toBeGreaterThan(0);
    expect(summarized[0]!.summaryDiff.every((line) => line.change === 'added')).toBe(true);
    expect(html).toContain('Diff against the previous summary');
    for (const call of inspection.calls) {
      const messages =
        call.composition.system +
        call.composition.summary +
        call.composition.memories +
        call.composition.history +
        call.composition.compressed +
        call.composition.toolResults;
      expect(messages).toBeLessThanOrEqual(call.budgetTokens);
      expect(call.tokens).toBeLessThanOrEqual(call.budgetTokens);
    }
  });
});

describe('diffSummaries', () => {
  it('marks added, removed and kept lines', () => {
    expect(diffSummaries('a\nb', 'b\nc')).toEqual([
      { change: 'removed', text: 'a' },
      { change: 'kept', text: 'b' },
      { change: 'added', text: 'c' },
    ]);
  });
});

describe('renderInspectorHtml on a hand-made inspection', () => {
  it('names a summarizer fallback, its kind and its reason, escaped', () => {
    const base = inspection.calls.find((call) => call.compaction)!;
    const page = renderInspectorHtml({
      ...inspection,
      calls: [
        {
          ...base,
          summarizer: 'model>extractive',
          fallbacks: [
            {
              from: 'model:gpt-4o-mini',
              kind: 'timeout',
              errorClass: 'CtxmemSummarizerError',
              description: 'timeout (CtxmemSummarizerError): timed out <after 30000 ms>',
            },
          ],
        },
      ],
    });
    const row = page.slice(
      page.indexOf('data-compaction='),
      page.indexOf('</tr>', page.indexOf('data-compaction=')),
    );
    expect(row).toContain(
      '<span class="badge warn">fallback</span> model&gt;extractive: <span class="fallback" data-kind="timeout">model:gpt-4o-mini failed: timeout (CtxmemSummarizerError): timed out &lt;after 30000 ms&gt;</span>',
    );
  });

  it("shows the ratio the budget used, the provider's count and a retry after a rejection", () => {
    const base = inspection.calls[0]!;
    const page = renderInspectorHtml({
      ...inspection,
      calls: [
        { ...base, number: 1, calibration: { ratio: 1.2, observations: 0 } },
        {
          ...base,
          number: 2,
          calibration: { ratio: 1.37, observations: 3, providerTokens: 14_210 },
          overflow: {
            countedTokens: 11_900,
            providerTokens: 16_422,
            limitTokens: 16_000,
            outcome: 'retried',
          },
        },
      ],
    });
    expect(page).toContain(
      "Budgeted at ×1.2 of ctxmem's count, as the provider counts (the prior, before any provider report).",
    );
    expect(page).toContain('learned from 3 provider reports');
    expect(page).toContain('the provider counted 14,210 input tokens for this call');
    expect(page).toContain(
      'The provider rejected the previous attempt as too long (ctxmem counted 11,900 tokens, the provider 16,422 against its limit of 16,000). This call is the one retry, prepared smaller.',
    );
    expect(page.match(/title="retry after a too-long rejection">retry</g)).toHaveLength(1);
  });
});
