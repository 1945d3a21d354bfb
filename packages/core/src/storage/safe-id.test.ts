import { describe, expect, it } from 'vitest';
import { InvalidIdError } from '../errors/index.js';
import { assertSafeId, isSafeId, MAX_ID_LENGTH } from './index.js';

describe('assertSafeId', () => {
  it('accepts ordinary ids', () => {
    for (const id of [
      'alice',
      'user-1_2',
      'alice@example.com',
      'a.b',
      '用户甲',
      '3f2b8c1e-9d4a-4c1b-8e2f-0a1b2c3d4e5f',
      'x'.repeat(MAX_ID_LENGTH),
      'name with spaces',
    ]) {
      expect(() => assertSafeId(id), id).not.toThrow();
      expect(isSafeId(id)).toBe(true);
    }
  });

  it('rejects traversal, separators, absolute paths, control characters, empty and long ids', () => {
    const rejected: unknown[] = [
      '',
      '.',
      '..',
      '../etc',
      'a/../b',
      'a..b',
      'a/b',
      '/etc/passwd',
      'a\\b',
      'C:\\Windows',
      'c:relative',
      'nul\u0000byte',
      'line\nbreak',
      'tab\there',
      'bell\u0007',
      'del\u007f',
      'c1\u0085',
      'separator\u2028',
      'x'.repeat(MAX_ID_LENGTH + 1),
      42,
      undefined,
      null,
      { id: 'x' },
    ];
    for (const id of rejected) {
      let error: unknown;
      try {
        assertSafeId(id, 'userId');
      } catch (caught) {
        error = caught;
      }
      expect(InvalidIdError.isInstance(error), JSON.stringify(id)).toBe(true);
      expect(isSafeId(id)).toBe(false);
    }
  });

  it('names the field and keeps the shown id short and printable', () => {
    let error: unknown;
    try {
      assertSafeId(`${'y'.repeat(300)}\u0000`, 'sessionId');
    } catch (caught) {
      error = caught;
    }
    expect(InvalidIdError.isInstance(error)).toBe(true);
    const invalid = error as InvalidIdError;
    expect(invalid.message).toContain('sessionId');
    expect(invalid.id.length).toBeLessThanOrEqual(41);
    expect(invalid.id).not.toContain('\u0000');
  });
});
