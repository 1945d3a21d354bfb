import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import {
  missingServerMessage,
  stopTestServices,
  testServices,
} from '../../../test/setup/services.js';
import { runExample } from './index.js';

const services = await testServices();
afterAll(stopTestServices);

describe('multi-instance example', () => {
  if (!services.postgresUrl) {
    it.skip(missingServerMessage('PostgreSQL', services.problems), () => {});
    return;
  }
  const connectionString = services.postgresUrl;
  it('compacts in one process and reuses the stored summary in another', async () => {
    const schema = `ctxmem_example_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
    const lines: string[] = [];
    const { compactor, reader } = await runExample({
      connectionString,
      schema,
      print: (line) => lines.push(line),
    });
    expect(compactor).toMatchObject({ compacted: true, storedVersion: 1 });
    expect(compactor.summarizedCount).toBeGreaterThan(0);
    expect(reader).toMatchObject({
      compacted: false,
      storedVersion: 1,
      summarizedCount: compactor.summarizedCount,
      historyMessages: 81,
      usesStoredSummary: true,
    });
    expect(reader.tokens).toBe(compactor.tokens);
    expect(lines).toHaveLength(4);
  }, 60_000);
});
