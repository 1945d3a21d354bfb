import { appendFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendJsonLines, readJsonLines, readLastJsonLine } from './index.js';

let folder: string;
let counter = 0;
const nextPath = () => join(folder, `file-${counter++}.jsonl`);
const asRecord = (value: unknown) =>
  value !== null && typeof value === 'object' && 'n' in value
    ? (value as { n: number })
    : undefined;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'ctxmem-jsonl-'));
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

describe('JSON Lines helpers', () => {
  it('appends records and reads them back; a missing file reads as empty', async () => {
    const path = join(folder, 'nested', 'deeper', 'log.jsonl');
    expect(await readJsonLines(path, asRecord)).toEqual({
      records: [],
      invalidLines: 0,
      tornTail: false,
    });
    expect(await readLastJsonLine(path)).toEqual({ kind: 'empty' });
    await appendJsonLines(path, [{ n: 1 }, { n: 2 }]);
    await appendJsonLines(path, [{ n: 3 }]);
    await appendJsonLines(path, []);
    expect(await readFile(path, 'utf8')).toBe('{"n":1}\n{"n":2}\n{"n":3}\n');
    expect((await readJsonLines(path, asRecord)).records).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
    expect(await readLastJsonLine(path)).toEqual({ kind: 'record', value: { n: 3 } });
  });

  it('skips a torn last line on read, and cuts it off before the next append', async () => {
    const path = nextPath();
    await appendJsonLines(path, [{ n: 1 }]);
    await appendFile(path, '{"n":2,"pay');
    const torn = await readJsonLines(path, asRecord);
    expect(torn).toEqual({ records: [{ n: 1 }], invalidLines: 0, tornTail: true });
    expect(await readLastJsonLine(path)).toEqual({ kind: 'record', value: { n: 1 } });
    await appendJsonLines(path, [{ n: 3 }]);
    expect(await readFile(path, 'utf8')).toBe('{"n":1}\n{"n":3}\n');
  });

  it('keeps an unterminated last line that parses, terminating it on the next append', async () => {
    const path = nextPath();
    await writeFile(path, '{"n":1}\n{"n":2}');
    expect((await readJsonLines(path, asRecord)).records).toEqual([{ n: 1 }, { n: 2 }]);
    expect(await readLastJsonLine(path)).toEqual({ kind: 'record', value: { n: 2 } });
    await appendJsonLines(path, [{ n: 3 }]);
    expect(await readFile(path, 'utf8')).toBe('{"n":1}\n{"n":2}\n{"n":3}\n');
  });

  it('counts complete lines that are not JSON or fail validation', async () => {
    const path = nextPath();
    await writeFile(path, '{"n":1}\nnot json\n\n{"other":true}\n{"n":4}\n');
    const result = await readJsonLines(path, asRecord);
    expect(result.records).toEqual([{ n: 1 }, { n: 4 }]);
    expect(result.invalidLines).toBe(2);
    expect(result.tornTail).toBe(false);
  });

  it('reports a damaged last complete line as invalid, and skips blank lines at the end', async () => {
    const path = nextPath();
    await writeFile(path, '{"n":1}\ngarbage\n');
    expect(await readLastJsonLine(path)).toEqual({ kind: 'invalid' });
    await writeFile(path, '{"n":1}\n\n  \n');
    expect(await readLastJsonLine(path)).toEqual({ kind: 'record', value: { n: 1 } });
    await writeFile(path, '\n\n');
    expect(await readLastJsonLine(path)).toEqual({ kind: 'empty' });
  });

  it('finds the last record across read chunks when lines are large', async () => {
    const path = nextPath();
    const big = 'x'.repeat(200_000);
    await appendJsonLines(path, [
      { n: 1, big },
      { n: 2, big },
    ]);
    await appendFile(path, `{"n":3,"big":"${big.slice(0, 100_000)}`);
    expect(await readLastJsonLine(path)).toEqual({ kind: 'record', value: { n: 2, big } });
    await appendJsonLines(path, [{ n: 4 }]);
    const result = await readJsonLines(path, asRecord);
    expect(result.records.map((record) => record.n)).toEqual([1, 2, 4]);
  });
});
