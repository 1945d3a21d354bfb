/**
 * The PostgreSQL stores shared by several processes, as several instances of an application share
 * them: concurrent writers lose and duplicate nothing, a writer killed with SIGKILL loses nothing
 * it had acknowledged, concurrent migrations apply each step once, and optimistic state updates
 * let exactly one writer per version through.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { auditStoredConversation } from '@ctxmem/core/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  missingServerMessage,
  stopTestServices,
  testServices,
} from '../../../test/setup/services.js';
import { linesAfter, startWriter } from '../../../test/setup/writer-process.js';
import { createPostgresStores } from './create-postgres-stores.js';
import { openPostgres, type TestDatabase } from './databases.test-support.js';

const fixture = fileURLToPath(new URL('./writer.test-support.ts', import.meta.url));
const services = await testServices();
afterAll(stopTestServices);
const scope = { userId: 'process-test', sessionId: 'one' };
const ROUNDS = 2;
const WRITERS = 3;

if (!services.postgresUrl) {
  const reason = missingServerMessage('PostgreSQL', services.problems);
  describe('PostgreSQL stores shared by processes', () => {
    it.skip(reason, () => {});
  });
} else {
  const url = services.postgresUrl;
  describe('PostgreSQL stores shared by processes', () => {
    let database: TestDatabase;
    beforeAll(() => {
      database = openPostgres(url);
    });
    afterAll(async () => {
      await database.cleanup();
    });

    async function reload(schema: string) {
      const stores = createPostgresStores({ pool: database.pool, schema });
      return {
        cards: await stores.memory.list(scope),
        history: await stores.history.read(scope),
      };
    }

    it('loses and duplicates nothing when two processes write the same scope at once', async () => {
      const schema = database.uniqueSchema();
      await createPostgresStores({ pool: database.pool, schema }).migrate();
      const count = 40;
      const writers = ['a', 'b'].map((label) =>
        startWriter(fixture, { mode: 'write', url, schema, label, count }),
      );
      await Promise.all(writers.map((writer) => writer.waitFor('done')));
      await Promise.all(writers.map((writer) => writer.exited));
      const { cards, history } = await reload(schema);
      expect(cards).toHaveLength(2 * count);
      expect(new Set(cards.map((card) => card.content)).size).toBe(2 * count);
      expect(history.map((entry) => entry.index)).toEqual(
        Array.from({ length: 2 * count }, (_, index) => index),
      );
      expect(history.map((entry) => entry.turn)).toEqual(
        Array.from({ length: 2 * count }, (_, index) => index + 1),
      );
      for (const writer of writers) {
        for (const line of linesAfter(writer, 'message')) {
          const [, index, content] = /^(\d+) (.*)$/u.exec(line)!;
          expect(history[Number(index)]!.message.content).toBe(content);
        }
      }
    }, 60_000);

    it(`keeps every acknowledged write of writers killed with SIGKILL (${ROUNDS} rounds of ${WRITERS} writers)`, async () => {
      const schema = database.uniqueSchema();
      await createPostgresStores({ pool: database.pool, schema }).migrate();
      const acknowledgedCards = new Set<string>();
      const acknowledgedMessages = new Map<number, string>();
      for (let round = 0; round < ROUNDS; round++) {
        // Several writers at once, each killed at its own random moment, mid-write or between.
        const writers = Array.from({ length: WRITERS }, (_, writer) =>
          startWriter(fixture, { mode: 'write', url, schema, label: `r${round}w${writer}` }),
        );
        await Promise.all(writers.map((writer) => writer.waitFor('ready')));
        await Promise.all(
          writers.map(async (writer) => {
            await sleep(30 + Math.random() * 300);
            writer.child.kill('SIGKILL');
            await writer.exited;
          }),
        );
        for (const writer of writers) {
          for (const content of linesAfter(writer, 'card')) acknowledgedCards.add(content);
          for (const line of linesAfter(writer, 'message')) {
            const [, index, content] = /^(\d+) (.*)$/u.exec(line)!;
            acknowledgedMessages.set(Number(index), content!);
          }
        }
        const { cards, history } = await reload(schema);
        const contents = cards.map((card) => card.content);
        for (const content of acknowledgedCards) expect(contents).toContain(content);
        expect(new Set(contents).size).toBe(contents.length);
        // Gap-free: a write cut off by the kill is either all there or not at all.
        expect(history.map((entry) => entry.index)).toEqual(history.map((_, index) => index));
        for (const [index, content] of acknowledgedMessages) {
          expect(history[index]?.message.content).toBe(content);
        }
      }
      expect(acknowledgedCards.size).toBeGreaterThan(0);
    }, 60_000);

    it('applies each migration once when several processes migrate at the same moment', async () => {
      const schema = database.uniqueSchema();
      const startAt = Date.now() + 1500;
      const migrators = ['a', 'b', 'c'].map(() =>
        startWriter(fixture, { mode: 'migrate', url, schema, startAt }),
      );
      await Promise.all(migrators.map((migrator) => migrator.waitFor('done')));
      const applied = migrators.flatMap((migrator) =>
        linesAfter(migrator, 'migrated').map((line) => JSON.parse(line) as number[]),
      );
      expect(applied.filter((versions) => versions.length > 0)).toEqual([[1, 2, 3, 4]]);
      const { rows } = await database.pool.query(
        `SELECT version FROM "${schema}".schema_version ORDER BY version`,
      );
      expect(rows.map((row) => row.version)).toEqual([1, 2, 3, 4]);
    }, 60_000);

    it('lets exactly one process through per state version', async () => {
      const schema = database.uniqueSchema();
      await createPostgresStores({ pool: database.pool, schema }).migrate();
      const count = 10;
      const startAt = Date.now() + 1000;
      const writers = ['a', 'b', 'c'].map((label) =>
        startWriter(fixture, { mode: 'state', url, schema, label, count, startAt }),
      );
      await Promise.all(writers.map((writer) => writer.waitFor('done')));
      const won = writers.flatMap((writer) => linesAfter(writer, 'won').map(Number));
      // Every version was written by exactly one process, and no update was lost.
      expect(won.sort((left, right) => left - right)).toEqual(
        Array.from({ length: 3 * count }, (_, index) => index + 1),
      );
      const state = await createPostgresStores({ pool: database.pool, schema }).history.getState(
        scope,
      );
      expect(state?.version).toBe(3 * count);
      expect(state?.messages).toHaveLength(3 * count);
    }, 60_000);

    it('stores each message once when 4 processes serve every turn of one conversation', async () => {
      const schema = database.uniqueSchema();
      await createPostgresStores({ pool: database.pool, schema }).migrate();
      const startAt = Date.now() + 3000;
      const writers = [0, 1, 2, 3].map(() =>
        startWriter(fixture, { mode: 'converse', url, schema, startAt }),
      );
      await Promise.all(writers.map((writer) => writer.waitFor('done')));
      const stores = createPostgresStores({ pool: database.pool, schema });
      expect(await auditStoredConversation(stores.history, scope)).toEqual({
        expected: 61,
        stored: 61,
        duplicates: 0,
        losses: 0,
        exact: true,
      });
    }, 120_000);
  });
}
