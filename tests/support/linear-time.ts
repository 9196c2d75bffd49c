/**
 * The bound of an attack-input test (catalog: ReDoS and quadratic scans). Attack inputs are sized at
 * about 1 MB, so a quadratic reading makes some 10^12 steps (many minutes in V8) while a linear one
 * takes a fraction of a second. The bound lies between the two and far from the linear time: no
 * load of a shared machine slows a linear pass a hundredfold, so only a super-linear reading reaches
 * it. Speed figures themselves belong to `npm run bench`.
 */
export const ONLY_QUADRATIC_REACHES_MS = 30_000;

/** Input sizes for attack inputs: 1 MiB. */
export const MB = 1 << 20;

/**
 * Runs `f` on an attack input and returns its result; throws when `f` ran past
 * {@link ONLY_QUADRATIC_REACHES_MS}, which only a super-linear reading of an input of about 1 MB does.
 */
export function notQuadratic<T>(f: () => T, what = 'the call'): T {
  const started = performance.now();
  const result = f();
  const ms = performance.now() - started;
  if (ms > ONLY_QUADRATIC_REACHES_MS) {
    throw new Error(`${what} took ${Math.round(ms / 1000)} s on an attack input: only a super-linear reading gets near ${ONLY_QUADRATIC_REACHES_MS / 1000} s`);
  }
  return result;
}
