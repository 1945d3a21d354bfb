import type { CompressionSettings } from '../contracts/index.js';
import { InvalidArgumentError } from '../errors/index.js';

/** Defaults: run thresholds, payload sizes and messages kept, as the progressive pipeline's strategies expect. */
export const DEFAULT_COMPRESSION_SETTINGS: Readonly<CompressionSettings> = Object.freeze({
  toolRunThreshold: 4,
  largePayloadChars: 5 * 1024,
  offloadPreviewChars: 200,
  offloadKeepRecent: 2,
  minMessagesToKeep: 4,
  summaryMaxTokens: 1_200,
  recentRounds: 3,
});

/**
 * When `summaryMaxTokens` is not set, the summary may take this share of the compaction target,
 * but never less than `DEFAULT_COMPRESSION_SETTINGS.summaryMaxTokens` nor more than
 * `SUMMARY_MAX_TOKENS_CEILING`: a long history compacted into a small budget gets a summary big
 * enough to carry it, and the newest messages stay verbatim in the rest (at least 30 % of the
 * target: the candidates stop at 0.7 by design). Chosen among 0.5, 0.6 and 0.7 by
 * leave-one-conversation-out on LoCoMo (`pnpm bench:quality`): 0.7 on every fold. A model
 * summarizer writes less than this room (see `Summarizer.maxSummaryTokens`); the extractive
 * summarizer fills it.
 */
export const SUMMARY_SHARE_OF_TARGET = 0.7;

/** The largest summary the budget-relative default allows (a user's `summaryMaxTokens` is not capped). */
export const SUMMARY_MAX_TOKENS_CEILING = 8_000;

/**
 * `resolveCompressionSettings` for one compaction: a `summaryMaxTokens` the caller did not set
 * follows the target (see `SUMMARY_SHARE_OF_TARGET`).
 */
export function resolveSettingsForTarget(
  settings: Partial<CompressionSettings> | undefined,
  targetTokens: number,
): CompressionSettings {
  const resolved = resolveCompressionSettings(settings);
  if (settings?.summaryMaxTokens !== undefined) return resolved;
  const byValue = Math.min(
    SUMMARY_MAX_TOKENS_CEILING,
    Math.floor(targetTokens * SUMMARY_SHARE_OF_TARGET),
  );
  return { ...resolved, summaryMaxTokens: Math.max(resolved.summaryMaxTokens, byValue) };
}

/** The smallest value each setting accepts. */
const MINIMUM: Readonly<Record<keyof CompressionSettings, number>> = {
  toolRunThreshold: 1,
  largePayloadChars: 1,
  offloadPreviewChars: 1,
  offloadKeepRecent: 0,
  minMessagesToKeep: 0,
  summaryMaxTokens: 1,
  recentRounds: 0,
};

/**
 * Fills in the defaults and validates: every setting is an integer at or above its minimum
 * (`InvalidArgumentError` naming `settings.<key>` otherwise). Unknown keys are rejected too, so a
 * misspelt option does not silently fall back to its default.
 */
export function resolveCompressionSettings(
  settings: Partial<CompressionSettings> = {},
): CompressionSettings {
  const resolved: CompressionSettings = { ...DEFAULT_COMPRESSION_SETTINGS };
  for (const [key, value] of Object.entries(settings)) {
    if (!(key in MINIMUM)) {
      throw new InvalidArgumentError({
        message: `Unknown compression setting "${key}"`,
        argument: `settings.${key}`,
      });
    }
    if (value === undefined) continue;
    const minimum = MINIMUM[key as keyof CompressionSettings];
    if (typeof value !== 'number' || !Number.isInteger(value) || value < minimum) {
      throw new InvalidArgumentError({
        message: `settings.${key} must be an integer ≥ ${minimum}, got ${String(value)}`,
        argument: `settings.${key}`,
      });
    }
    resolved[key as keyof CompressionSettings] = value;
  }
  return resolved;
}
