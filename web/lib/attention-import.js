// Bring your own attention: a real model's weights in the Hugging Face `output_attentions`
// layout, read into the core's matrices and checked by the core (attention_import.hpp: shapes,
// finite weights in 0 … 1, rows summing to 1, the limits lab.limits().importLayers and
// .importValues), which also scores every head. Part of the model module's chunk; like
// model.js it imports nothing and takes the entry's helpers.
//
// The JSON: { tokens: string[], attentions: [layer][batch][head][query][key] } (every layer of
// model(…, output_attentions=True), a batch of one sequence), or { tokens, attention:
// [head][query][key] } (one layer).

/** The import as the core takes it: { tokens, matrices: [layer][head] { rows, cols, data } }. */
export function importRequest(json, { AttnLabError, describe, readList, toCoreMatrix }) {
  const invalid = (message) => new AttnLabError('invalid-argument', message);
  if (json === null || typeof json !== 'object' || Array.isArray(json)) throw invalid(`the attention must be a JSON object { tokens, attentions } or { tokens, attention }, got ${describe(json)}`);
  const { tokens, attentions, attention } = json;
  const labels = readList('tokens', tokens, (t, where, i) => {
    if (typeof t !== 'string') throw invalid(`${where}[${i}] is ${describe(t)}, not a string`);
    return t;
  }, 'an array of strings (the tokens, in order)');
  const heads = (where, list) => readList(where, list, (matrix, at, h) => toCoreMatrix(`${at}[${h}]`, matrix), 'an array of heads, each [query][key]');
  if ((attentions === undefined) === (attention === undefined)) throw invalid('give either attentions ([layer][batch][head][query][key]) or attention ([head][query][key]), not both or neither');
  if (attention !== undefined) return { tokens: labels, matrices: [heads('attention', attention)] };
  const layers = readList('attentions', attentions, (batch, where, l) => {
    const sequences = readList(`${where}[${l}]`, batch, (sequence) => sequence, 'an array: the batch of layer ' + (l + 1));
    if (sequences.length !== 1) throw new AttnLabError('shape-mismatch', `${where}[${l}] holds a batch of ${sequences.length} sequences: export one sequence (batch size 1)`);
    return heads(`${where}[${l}][0]`, sequences[0]);
  }, 'an array of layers, each [batch][head][query][key]');
  return { tokens: labels, matrices: layers };
}
