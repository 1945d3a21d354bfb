import { isAbsolute } from 'node:path';

/**
 * The folder relative paths resolve against: `CTXMEM_CALLER_CWD` when a wrapper that changes
 * directory set it (`scripts/run.sh`, the repository's `pnpm ctxmem`), else the process's own.
 * A relative or empty value is ignored: it could only be resolved against the wrong folder.
 */
export function callerDirectory(
  env: Readonly<Record<string, string | undefined>>,
  processDirectory: string,
): string {
  const fromWrapper = env.CTXMEM_CALLER_CWD?.trim();
  return fromWrapper && isAbsolute(fromWrapper) ? fromWrapper : processDirectory;
}
