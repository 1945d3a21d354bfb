/** Where stores read the current time. Tests pass a fake clock (`createFakeClock` in `test/`). */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

/** The real clock. */
export const systemClock: Clock = { now: () => Date.now() };

/** The clock's time as an ISO 8601 string, the format every stored timestamp uses. */
export function isoNow(clock: Clock): string {
  return new Date(clock.now()).toISOString();
}
