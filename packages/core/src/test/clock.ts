import type { Clock } from '../storage/index.js';

/** A clock that only moves when told to, for deterministic timestamps in tests. */
export interface FakeClock extends Clock {
  /** Moves the clock forward by `milliseconds`. */
  advance(milliseconds: number): void;
  /** Sets the clock to a time (epoch milliseconds, a `Date` or an ISO string). */
  set(time: number | Date | string): void;
  /** The current time as an ISO string. */
  iso(): string;
}

function toMilliseconds(time: number | Date | string): number {
  const value = typeof time === 'number' ? time : new Date(time).getTime();
  if (!Number.isFinite(value)) throw new RangeError(`Not a valid time: ${String(time)}`);
  return value;
}

/**
 * Creates a fake clock.
 * @param start - The initial time. @default '2026-01-01T00:00:00.000Z'
 */
export function createFakeClock(
  start: number | Date | string = '2026-01-01T00:00:00.000Z',
): FakeClock {
  let now = toMilliseconds(start);
  return {
    now: () => now,
    advance(milliseconds) {
      if (!(milliseconds >= 0)) throw new RangeError('A fake clock only moves forward.');
      now += milliseconds;
    },
    set(time) {
      now = toMilliseconds(time);
    },
    iso: () => new Date(now).toISOString(),
  };
}
