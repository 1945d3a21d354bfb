import { CtxmemError, type CtxmemErrorOptions } from '@ctxmem/core';

/**
 * An option needs a package that is not installed (the local model, the AI SDK): the message
 * says what to install. A setup problem, not a usage mistake, so the exit code is 1.
 */
export class OptionalPackageMissingError extends CtxmemError {
  static override readonly errorName = 'CtxmemOptionalPackageMissingError';
  /** The packages to install. */
  readonly packages: readonly string[];

  constructor({
    packages,
    option,
    ...options
  }: Partial<CtxmemErrorOptions> & { packages: readonly string[]; option: string }) {
    super({
      message:
        options.message ??
        `${option} needs the optional ${packages.length === 1 ? 'package' : 'packages'} ${packages.join(', ')}: install ${packages.length === 1 ? 'it' : 'them'} beside ctxmem (npm install ${packages.join(' ')})`,
      ...(options.cause === undefined ? {} : { cause: options.cause }),
    });
    this.packages = packages;
  }

  static override readonly isInstance = CtxmemError.markerGuard<OptionalPackageMissingError>(this);
}
