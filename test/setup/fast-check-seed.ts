/*
 * Property tests run with one fixed seed in CI (`CTXMEM_FAST_CHECK_SEED`, set by `.ci/run`), so a
 * red run can be replayed exactly, and with a fresh seed locally so they keep exploring. fast-check
 * prints the seed and path of any counterexample; rerun with `CTXMEM_FAST_CHECK_SEED=<seed>`.
 */
import fc from 'fast-check';

const fixed = process.env.CTXMEM_FAST_CHECK_SEED;
if (fixed !== undefined && fixed !== '') {
  const seed = Number(fixed);
  if (!Number.isSafeInteger(seed)) {
    throw new Error(`CTXMEM_FAST_CHECK_SEED must be an integer, got "${fixed}"`);
  }
  fc.configureGlobal({ ...fc.readConfigureGlobal(), seed });
}
