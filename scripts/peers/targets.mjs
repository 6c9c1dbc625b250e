// Issue 41's targets for a bench:peers row, stated once: bench-peers.mjs checks each row against
// them and tables.mjs's legend describes them from the same figures.

// Natively, the fastest peer's median time over attnlab's, with every round's ratio above 1.
export const NATIVE_RATIO = 1.05;
// The share of the FMA peak (%) attnlab's kernel must reach: natively at n = 4,096, d = 64 only;
// in wasm (against the SIMD128 peak, the older floor of the wasm rows) in every row.
export const PEAK_PCT = { nonCausalOneThread: 75, nonCausalTwoThreads: 80, causal: 65, wasm: 60 };
const PEAK_SHAPE = { n: 4096, d: 64 };

function peakFloor(row) {
  if (row.section !== 'native') return PEAK_PCT.wasm;
  if (row.n !== PEAK_SHAPE.n || row.d !== PEAK_SHAPE.d) return 0;
  if (row.causal) return PEAK_PCT.causal;
  return row.threads === 2 ? PEAK_PCT.nonCausalTwoThreads : PEAK_PCT.nonCausalOneThread;
}

/** Whether attnlab's line of `row` meets its target, given whether any rival peer was timed. */
export function meetsTarget(row, attnlab, anyRivalTimed) {
  const ahead =
    !anyRivalTimed ||
    (row.section === 'native' ? attnlab.best_peer_over_attnlab >= NATIVE_RATIO && attnlab.lowest_round_ratio > 1 : attnlab.best_peer_over_attnlab > 1);
  return ahead && attnlab.pct_peak >= peakFloor(row);
}

/** The targets in words, for the tables' legend. */
export function describeTargets() {
  const shape = `n = ${PEAK_SHAPE.n.toLocaleString('en-US')}, d = ${PEAK_SHAPE.d}`;
  return (
    `natively ${NATIVE_RATIO.toFixed(2)}× with every round above 1, and at ${shape} a share of the FMA peak ` +
    `(non-causal ${PEAK_PCT.nonCausalOneThread}% on 1 thread, ${PEAK_PCT.nonCausalTwoThreads}% on 2; causal ${PEAK_PCT.causal}%), ` +
    `in wasm ${PEAK_PCT.wasm}% of the SIMD128 peak`
  );
}
