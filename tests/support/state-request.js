// The tests' own reading of the element's state: what lab.trace() request a state stands for,
// written from the documented schema (the state table in web/element/README.md and the
// header of web/element/state.js) and the package's TraceRequest types (web/lib/attnlab.d.ts),
// never from the element's code, so a mistake in the element's mapping shows up as a
// difference instead of being copied into the expected numbers.
//
//   mode 'x'    X, Wq, Wk, Wv, projected by the core; positional applies; tokens label the
//               rows (passed through, they change no number)
//   mode 'qkv'  Q, K, V given directly (positional does not apply)
//   Wo          null = no output projection; otherwise applied to the concatenated heads, in
//               either mode (the package's TraceCommon; the state's header lists it with X)
//   heads, causal, temperature   passed as they are
//   keyPadding  true = a padding key; all false is the same as none
//   mask        null = no mask; otherwise true where query i may attend to key j
//   scale       true = the core's default 1/√d_k, false = no scaling (a factor of 1), a number = that factor

/** The lab.trace() request for a full element state. */
export function stateToTraceRequest(state) {
  const request = { heads: state.heads, causal: state.causal, temperature: state.temperature };
  if (state.scale === false) request.scale = 1;
  else if (typeof state.scale === 'number') request.scale = state.scale;
  else if (state.scale !== true) throw new Error(`scale must be true, false or a number, not ${JSON.stringify(state.scale)}`);
  if (state.mask !== null && state.mask !== undefined) request.mask = state.mask;
  if (state.Wo !== null && state.Wo !== undefined) request.Wo = state.Wo;
  if (Array.isArray(state.keyPadding) && state.keyPadding.includes(true)) request.keyPadding = state.keyPadding;
  if (state.mode === 'x') {
    Object.assign(request, { X: state.X, Wq: state.Wq, Wk: state.Wk, Wv: state.Wv, positional: state.positional, tokens: state.tokens });
  } else if (state.mode === 'qkv') {
    Object.assign(request, { Q: state.Q, K: state.K, V: state.V });
  } else {
    throw new Error(`mode must be 'x' or 'qkv', not ${JSON.stringify(state.mode)}`);
  }
  return request;
}
