const marker = 'ctxmem.error';
const symbol = Symbol.for(marker);

/**
 * Base class of every error ctxmem throws. `isInstance` checks a global symbol marker instead of
 * `instanceof`, so it still works when two copies of the package are installed side by side.
 */
export class CtxmemError extends Error {
  private readonly [symbol] = true;

  override readonly name: string;
  override readonly cause?: unknown;

  constructor({ name, message, cause }: { name: string; message: string; cause?: unknown }) {
    super(message);
    this.name = name;
    this.cause = cause;
  }

  static isInstance(error: unknown): error is CtxmemError {
    return CtxmemError.hasMarker(error, marker);
  }

  protected static hasMarker(error: unknown, markerName: string): boolean {
    const markerSymbol = Symbol.for(markerName);
    return (
      error != null &&
      typeof error === 'object' &&
      markerSymbol in error &&
      typeof (error as Record<symbol, unknown>)[markerSymbol] === 'boolean' &&
      (error as Record<symbol, unknown>)[markerSymbol] === true
    );
  }
}
