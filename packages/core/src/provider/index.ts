export {
  CALIBRATION_MARGIN,
  CALIBRATION_OBSERVATIONS,
  CALIBRATION_PRIOR_WEIGHT,
  CALIBRATION_QUANTILE,
  COUNT_RATIO_BOUNDS,
  type CountCalibration,
  type CountCalibrationOptions,
  createCountCalibration,
  defaultCountRatio,
  MIN_OBSERVED_TOKENS,
  weightedQuantile,
} from './count-calibration.js';
export { type ContextOverflow, detectContextOverflow } from './detect-context-overflow.js';
export {
  OVERFLOW_RETRY_MARGIN,
  OVERFLOW_RETRY_SHARE,
  type OverflowRetryPlan,
  planOverflowRetry,
  type RejectedRequest,
} from './overflow-retry.js';
export {
  type ProviderUsage,
  providerUsage,
  reportedUsage,
} from './provider-usage.js';
