import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { type RoundRobinProxy, startRoundRobinProxy } from './proxy.js';
import type { StoreKind } from './stores.js';

const appServer = fileURLToPath(new URL('./app-server.ts', import.meta.url));

export interface DeploymentOptions {
  store: StoreKind;
  url: string;
  /** PostgreSQL schema or Redis key prefix. */
  namespace: string;
  /** @default 3 */
  instances?: number;
  /**
   * The script each instance runs: a `.ts` file runs with tsx, anything else with plain node (the
   * tests pass a bundle of app-server.ts, which starts several times faster).
   * @default src/app-server.ts
   */
  instanceEntry?: string;
}

export interface Deployment {
  /** The round-robin proxy every client talks to. */
  url: string;
  /** Each instance's own URL, for requests that bypass the proxy. */
  instances: string[];
  stop(): Promise<void>;
}

function startInstance(
  options: DeploymentOptions,
  name: string,
): Promise<{ child: ChildProcess; url: string }> {
  return new Promise((resolve, reject) => {
    // The parent's folder: tsx resolves @ctxmem/* through the tsconfig there (the sources from
    // the repository root, the built packages from the example's folder).
    const { instanceEntry = appServer } = options;
    const loader = instanceEntry.endsWith('.ts') ? ['--import', 'tsx'] : [];
    const child = spawn(process.execPath, [...loader, instanceEntry], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        CTXMEM_EXAMPLE_STORE: options.store,
        CTXMEM_EXAMPLE_URL: options.url,
        CTXMEM_EXAMPLE_NAMESPACE: options.namespace,
        CTXMEM_EXAMPLE_INSTANCE: name,
      },
    });
    let errors = '';
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      errors += chunk;
    });
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      const port = /listening (\d+)/u.exec(chunk)?.[1];
      if (port) resolve({ child, url: `http://127.0.0.1:${port}` });
    });
    child.once('exit', (code) => reject(new Error(`${name} exited with ${code}: ${errors}`)));
  });
}

/** Starts the app instances (processes) and the round-robin proxy in front of them. */
export async function startDeployment(options: DeploymentOptions): Promise<Deployment> {
  const { instances = 3 } = options;
  const started = await Promise.allSettled(
    Array.from({ length: instances }, (_, index) =>
      startInstance(options, `app-${String.fromCharCode(97 + index)}`),
    ),
  );
  const children = started.flatMap((entry) => (entry.status === 'fulfilled' ? [entry.value] : []));
  const stopChildren = async () => {
    await Promise.all(
      children.map(
        ({ child }) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null) return resolve();
            child.removeAllListeners('exit');
            child.once('exit', () => resolve());
            child.kill('SIGTERM');
          }),
      ),
    );
  };
  const failed = started.find((entry) => entry.status === 'rejected');
  if (failed) {
    await stopChildren();
    throw (failed as PromiseRejectedResult).reason;
  }
  let proxy: RoundRobinProxy;
  try {
    proxy = await startRoundRobinProxy(children.map(({ url }) => url));
  } catch (error) {
    await stopChildren();
    throw error;
  }
  return {
    url: proxy.url,
    instances: children.map(({ url }) => url),
    async stop() {
      await proxy.close();
      await stopChildren();
    },
  };
}
