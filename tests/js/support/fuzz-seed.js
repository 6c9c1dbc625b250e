// A fuzz test's seed and duration: ATTNLAB_FUZZ_SEED=<seed> replays a run (else one from the
// clock and the process), ATTNLAB_FUZZ_SECONDS sets the time; the seed is printed first.
export function fuzzRun(name, seconds) {
  const env = process.env;
  const SEED = env.ATTNLAB_FUZZ_SEED === undefined ? (Date.now() ^ (process.pid << 12)) >>> 0 : Number(env.ATTNLAB_FUZZ_SEED);
  console.log(`${name}: seed ${SEED} (replay with ATTNLAB_FUZZ_SEED=${SEED})`);
  return { SEED, SECONDS: Number(env.ATTNLAB_FUZZ_SECONDS ?? seconds) };
}
