/**
 * Database servers for the driver tests. Where the URLs come from, in order:
 * 1. `CTXMEM_POSTGRES_URL` / `CTXMEM_REDIS_URL` in the environment;
 * 2. `.cache/test-services.env`, written by `bash scripts/test-services.sh start` (checked to be up);
 * 3. temporary servers started here, when the binaries are installed (PostgreSQL's `initdb` and
 *    `pg_ctl` under `/usr/lib/postgresql/<version>/bin` or on PATH, and `redis-server`), in a
 *    temporary folder on free loopback ports, stopped by the returned `stop`.
 * The vitest global setup (`global-setup.ts`) does this once per run; a test file run without it
 * does it for itself through `testServices()`.
 */
import { execFileSync, spawn } from 'node:child_process';
import {
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
} from 'node:fs';
import { createServer, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface ServiceUrls {
  postgresUrl?: string;
  redisUrl?: string;
  /** Why a server is missing, for the skip or failure message. */
  problems: string[];
}

export interface StartedServices extends ServiceUrls {
  stop(): Promise<void>;
}

const root = fileURLToPath(new URL('../../', import.meta.url));
export const SERVICES_FILE = join(root, '.cache', 'test-services.env');
/** Set by the global setup once it has looked for servers, so test files do not look again. */
export const CHECKED_VARIABLE = 'CTXMEM_SERVICES_CHECKED';

/** Reads `export KEY=VALUE` lines. */
export function readServicesFile(path = SERVICES_FILE): Record<string, string> {
  if (!existsSync(path)) return {};
  const values: Record<string, string> = {};
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    const match = /^(?:export\s+)?([A-Z_][A-Z0-9_]*)=(.*)$/u.exec(line.trim());
    if (match) values[match[1]!] = match[2]!.replace(/^['"]|['"]$/gu, '');
  }
  return values;
}

/** Whether something accepts TCP connections at the URL's host and port. */
export function reachable(url: string, timeoutMs = 1000): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (result: boolean) => {
      socket.destroy();
      resolve(result);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('error', () => done(false));
    socket.connect(Number(port), hostname.replace(/^\[|\]$/gu, ''), () => done(true));
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

function onPath(binary: string): string | undefined {
  for (const folder of (process.env.PATH ?? '').split(':')) {
    if (folder && existsSync(join(folder, binary))) return join(folder, binary);
  }
  return undefined;
}

/** The newest PostgreSQL server binaries' folder, if any. */
export function postgresBinaries(): string | undefined {
  const base = '/usr/lib/postgresql';
  if (existsSync(base)) {
    const versions = readdirSync(base)
      .filter((version) => existsSync(join(base, version, 'bin', 'pg_ctl')))
      .sort((left, right) => Number.parseFloat(right) - Number.parseFloat(left));
    if (versions[0]) return join(base, versions[0], 'bin');
  }
  const initdb = onPath('initdb');
  return initdb && onPath('pg_ctl') ? join(initdb, '..') : undefined;
}

async function waitFor(url: string, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await reachable(url, 300)) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}

/** The user PostgreSQL runs as: itself, or (as root, which PostgreSQL refuses) `postgres`. */
function postgresUser(): { prefix: string[]; uid?: number; gid?: number } {
  if (process.getuid?.() !== 0) return { prefix: [] };
  try {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    return { prefix: ['runuser', '-u', 'postgres', '--'], uid, gid };
  } catch {
    throw new Error('running as root and there is no "postgres" user to run PostgreSQL as');
  }
}

async function startPostgres(folder: string): Promise<{ url: string; stop: () => void }> {
  const bin = postgresBinaries();
  if (!bin) throw new Error('PostgreSQL is not installed (no initdb / pg_ctl)');
  const user = postgresUser();
  const data = join(folder, 'postgres');
  mkdirSync(data, { mode: 0o700 });
  if (user.uid !== undefined) chownSync(data, user.uid, user.gid!);
  const run = (binary: string, args: string[]) => {
    const [command, ...prefix] = [...user.prefix, join(bin, binary)];
    execFileSync(command!, [...prefix, ...args], { stdio: 'pipe', timeout: 60_000 });
  };
  run('initdb', [
    '-D',
    data,
    '-U',
    'postgres',
    '--auth=trust',
    '--encoding=UTF8',
    '--locale=C',
    '--no-sync',
  ]);
  const port = await freePort();
  run('pg_ctl', [
    '-D',
    data,
    '-l',
    join(data, 'server.log'),
    '-w',
    '-t',
    '60',
    '-o',
    `-p ${port} -k ${data} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`,
    'start',
  ]);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop: () => {
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } catch {
        // Already gone.
      }
    },
  };
}

async function startRedis(folder: string): Promise<{ url: string; stop: () => void }> {
  const binary = onPath('redis-server');
  if (!binary) throw new Error('redis-server is not installed');
  const port = await freePort();
  const child = spawn(
    binary,
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--dir',
      folder,
      '--save',
      '',
      '--appendonly',
      'no',
    ],
    { stdio: 'ignore' },
  );
  const url = `redis://127.0.0.1:${port}`;
  if (!(await waitFor(url, 10_000))) {
    child.kill('SIGKILL');
    throw new Error('redis-server did not start');
  }
  return { url, stop: () => child.kill('SIGTERM') };
}

/** Starts temporary PostgreSQL and Redis servers where installed; reports what could not start. */
export async function startServices(): Promise<StartedServices> {
  const folder = mkdtempSync(join(tmpdir(), 'ctxmem-services-'));
  execFileSync('chmod', ['755', folder]);
  const stops: Array<() => void> = [];
  const result: StartedServices = {
    problems: [],
    stop: async () => {
      for (const stop of stops.splice(0)) stop();
      rmSync(folder, { recursive: true, force: true });
    },
  };
  try {
    const postgres = await startPostgres(folder);
    stops.push(postgres.stop);
    result.postgresUrl = postgres.url;
  } catch (error) {
    result.problems.push(`PostgreSQL: ${error instanceof Error ? error.message : String(error)}`);
  }
  try {
    const redis = await startRedis(folder);
    stops.push(redis.stop);
    result.redisUrl = redis.url;
  } catch (error) {
    result.problems.push(`Redis: ${error instanceof Error ? error.message : String(error)}`);
  }
  return result;
}

/** The URLs from the environment or from a running `scripts/test-services.sh`. */
export async function configuredServices(): Promise<ServiceUrls> {
  const file = readServicesFile();
  const result: ServiceUrls = { problems: [] };
  const pick = async (variable: string): Promise<string | undefined> => {
    const fromEnvironment = process.env[variable];
    if (fromEnvironment) return fromEnvironment;
    const fromFile = file[variable];
    return fromFile && (await reachable(fromFile)) ? fromFile : undefined;
  };
  const postgresUrl = await pick('CTXMEM_POSTGRES_URL');
  const redisUrl = await pick('CTXMEM_REDIS_URL');
  if (postgresUrl) result.postgresUrl = postgresUrl;
  if (redisUrl) result.redisUrl = redisUrl;
  return result;
}

let shared: Promise<ServiceUrls & { stop?: () => Promise<void> }> | undefined;

/**
 * For test files: the servers to test against. Uses the environment (set by the global setup or by
 * hand) or the services file; without either, and when no global setup has looked already, starts
 * temporary servers for this test file (stop them with `stopTestServices` in `afterAll`).
 */
export function testServices(): Promise<ServiceUrls> {
  shared ??= (async () => {
    const configured = await configuredServices();
    const complete = configured.postgresUrl && configured.redisUrl;
    if (complete || process.env[CHECKED_VARIABLE] === '1') {
      if (!configured.postgresUrl)
        configured.problems.push(process.env.CTXMEM_POSTGRES_PROBLEM ?? 'PostgreSQL: no server');
      if (!configured.redisUrl)
        configured.problems.push(process.env.CTXMEM_REDIS_PROBLEM ?? 'Redis: no server');
      return configured;
    }
    const started = await startServices();
    return {
      postgresUrl: configured.postgresUrl ?? started.postgresUrl,
      redisUrl: configured.redisUrl ?? started.redisUrl,
      problems: started.problems,
      stop: started.stop,
    };
  })();
  return shared;
}

/** Stops the servers `testServices` started for this file, if it started any. */
export async function stopTestServices(): Promise<void> {
  const services = await shared;
  await services?.stop?.();
}

/**
 * What a test file does when a server is missing: outside CI, skip with the reason; in CI (the
 * `CI` variable set), fail, because CI must test the drivers.
 */
export function missingServerMessage(server: 'PostgreSQL' | 'Redis', problems: string[]): string {
  const why = problems.filter((problem) => problem.startsWith(server)).join('; ') || 'no server';
  const message = `${server} tests need a server (${why}). Run \`bash scripts/test-services.sh start\`, or set CTXMEM_${server === 'PostgreSQL' ? 'POSTGRES' : 'REDIS'}_URL.`;
  if (process.env.CI) throw new Error(`${message} CI is set, so this is a failure, not a skip.`);
  console.warn(`skipping: ${message}`);
  return message;
}
