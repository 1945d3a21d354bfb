import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../errors/index.js';
import { TRUNCATION_MARKER_PREFIX, trimBootstrapContent } from './index.js';

describe('trimBootstrapContent', () => {
  it('returns small content unchanged', () => {
    const content = trimBootstrapContent('small content', 'TEST.md', 10_000);
    expect(content).toBe('small content');
    expect(content).not.toContain(TRUNCATION_MARKER_PREFIX);
  });

  it('keeps content of exactly maxChars and cuts content one character longer', () => {
    expect(trimBootstrapContent('y'.repeat(100), 'A.md', 100)).toBe('y'.repeat(100));
    const cut = trimBootstrapContent('y'.repeat(101), 'A.md', 100);
    expect(cut).toContain(TRUNCATION_MARKER_PREFIX);
    expect(cut.length).toBeLessThanOrEqual(100);
  });

  it('cuts a large file to head 70% + tail 20% with a marker', () => {
    const trimmed = trimBootstrapContent('x'.repeat(30_000), 'TEST.md', 10_000);
    expect(trimmed.length).toBeLessThanOrEqual(10_000);
    expect(trimmed).toContain('[...truncated');
    expect(trimmed).toContain('x'.repeat(7000));
    expect(trimmed).toContain('x'.repeat(2000));
  });

  it('keeps exactly the head and tail ratios and names the file and the cut in the marker', () => {
    const content = `${'h'.repeat(15_000)}${'Q'.repeat(5_000)}${'t'.repeat(10_000)}`;
    const trimmed = trimBootstrapContent(content, 'TEST.md', 10_000);
    expect(trimmed.startsWith('h'.repeat(7000))).toBe(true);
    expect(trimmed.endsWith('t'.repeat(2000))).toBe(true);
    expect(trimmed).not.toContain('Q');
    expect(trimmed).toContain('[...truncated 21000 chars, read TEST.md for full content...]');
    // 7000 of the head and 2000 of the tail survive, nothing else of the content.
    expect(trimmed.replace(/\n*\[\.\.\.truncated[^\]]*\]\n*/, '')).toBe(
      'h'.repeat(7000) + 't'.repeat(2000),
    );
  });

  it('honours custom ratios', () => {
    const trimmed = trimBootstrapContent('a'.repeat(1000) + 'b'.repeat(1000), 'X.md', 1000, {
      headRatio: 0.5,
      tailRatio: 0.4,
    });
    expect(trimmed.startsWith('a'.repeat(500))).toBe(true);
    expect(trimmed.endsWith('b'.repeat(400))).toBe(true);
  });

  it('shrinks head and tail when the marker would not fit in the remaining 10%', () => {
    const trimmed = trimBootstrapContent('z'.repeat(5000), 'A-LONG-FILE-NAME.md', 120);
    expect(trimmed.length).toBeLessThanOrEqual(120);
    expect(trimmed).toContain('read A-LONG-FILE-NAME.md');
    expect(trimmed.startsWith('z')).toBe(true);
  });

  it('falls back to a short marker, then to nothing, when maxChars is tiny', () => {
    const short = trimBootstrapContent('z'.repeat(5000), 'A-VERY-LONG-FILE-NAME.md', 40);
    expect(short.length).toBeLessThanOrEqual(40);
    expect(short).toContain('[...truncated');
    expect(short).not.toContain('A-VERY-LONG-FILE-NAME.md');
    expect(trimBootstrapContent('z'.repeat(5000), 'A.md', 10)).toBe('');
    expect(trimBootstrapContent('z'.repeat(5000), 'A.md', 0)).toBe('');
  });

  it('never splits a surrogate pair', () => {
    const trimmed = trimBootstrapContent('😀'.repeat(1000), 'E.md', 501);
    expect(trimmed.length).toBeLessThanOrEqual(501);
    expect(trimmed).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
    expect(trimmed).not.toMatch(/(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
  });

  it('rejects bad limits and ratios with InvalidArgumentError', () => {
    for (const call of [
      () => trimBootstrapContent('abc', 'A.md', -1),
      () => trimBootstrapContent('abc', 'A.md', Number.NaN),
      () => trimBootstrapContent('abc', 'A.md', 1.5),
      () => trimBootstrapContent('abc', 'A.md', 10, { headRatio: 0.9, tailRatio: 0.2 }),
      () => trimBootstrapContent('abc', 'A.md', 10, { headRatio: -0.1 }),
    ]) {
      expect(call).toThrow();
      try {
        call();
      } catch (error) {
        expect(InvalidArgumentError.isInstance(error)).toBe(true);
      }
    }
  });

  it('never exceeds maxChars and always keeps a prefix and a suffix of the content', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 3000, unit: 'grapheme' }),
        fc.integer({ min: 0, max: 2000 }),
        (content, maxChars) => {
          const trimmed = trimBootstrapContent(content, 'NOTES.md', maxChars);
          expect(trimmed.length).toBeLessThanOrEqual(Math.max(maxChars, 0));
          if (content.length <= maxChars) {
            expect(trimmed).toBe(content);
            return;
          }
          if (trimmed === '') return;
          const markerStart = trimmed.indexOf(`${TRUNCATION_MARKER_PREFIX} `);
          const markerEnd = trimmed.indexOf(']', markerStart);
          const head = trimmed.slice(0, markerStart).replace(/\n+$/, '');
          const tail = trimmed.slice(markerEnd + 1).replace(/^\n+/, '');
          expect(content.startsWith(head)).toBe(true);
          expect(content.endsWith(tail)).toBe(true);
        },
      ),
      { numRuns: 150 },
    );
  });
});
