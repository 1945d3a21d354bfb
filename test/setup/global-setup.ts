/**
 * Vitest global setup: finds or starts the PostgreSQL and Redis servers the driver tests use (see
 * `services.ts`) once per run, exports their URLs to the test processes, and stops what it
 * started. Wire it in vitest.config.ts as `globalSetup: ['./test/setup/global-setup.ts']`.
 */
import {
  CHECKED_VARIABLE,
  configuredServices,
  type StartedServices,
  startServices,
} from './services.js';

let started: StartedServices | undefined;

export async function setup(): Promise<void> {
  const configured = await configuredServices();
  let { postgresUrl, redisUrl } = configured;
  const problems: string[] = [];
  if (!postgresUrl || !redisUrl) {
    started = await startServices();
    postgresUrl ??= started.postgresUrl;
    redisUrl ??= started.redisUrl;
    problems.push(...started.problems);
  }
  // Test processes are forked after this runs and inherit the environment.
  if (postgresUrl) process.env.CTXMEM_POSTGRES_URL = postgresUrl;
  else
    process.env.CTXMEM_POSTGRES_PROBLEM =
      problems.find((line) => line.startsWith('PostgreSQL')) ?? 'PostgreSQL: no server';
  if (redisUrl) process.env.CTXMEM_REDIS_URL = redisUrl;
  else
    process.env.CTXMEM_REDIS_PROBLEM =
      problems.find((line) => line.startsWith('Redis')) ?? 'Redis: no server';
  process.env[CHECKED_VARIABLE] = '1';
}

export async function teardown(): Promise<void> {
  await started?.stop();
  started = undefined;
}
