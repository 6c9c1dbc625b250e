// lab.importAttention()'s JSON read into the core's request, every size checked before a cell
// is converted or copied. The core checks the same sizes (attention_import.cpp), but only after
// the whole import has been converted here and copied into the model module's heap: 128 layers
// of 64 heads × 512 tokens took 87 s and grew that heap (which never shrinks) to 2 GiB before
// the refusal. So the dimensions are read first, each from its list's length alone: the
// tokens, the layers, the heads, then the product against limits().importValues, then each
// head's rows and each row's length; a head's cells are converted only once its shape and the
// total are known to fit. The messages and codes are the core's, so a refusal reads the same
// whichever side makes it.
//
// Only own fields of the JSON are read (an inherited `attention` is not the caller's data),
// each once; whatever a getter or a Proxy throws becomes an AttnLabError naming the field.
// The chunk's helpers (AttnLabError, describe, readList, toCoreMatrix, limits) come from the
// entry, as model.js's do.

const ARRAY_EXPECTED = {
  attentions: 'an array of layers, each [batch][head][query][key]',
  attention: 'an array of heads, each [query][key]',
};

/**
 * { tokens, layers: [layer][head] core matrices } for the model module's checkAttention, or an
 * AttnLabError. `h`: the entry's helpers.
 */
export function importRequest(json, h) {
  const { AttnLabError, describe } = h;
  const invalid = (message) => new AttnLabError('invalid-argument', message);
  const tooLarge = (message) => new AttnLabError('too-large', message);
  if (json === null || typeof json !== 'object' || Array.isArray(json))
    throw invalid(`the attention must be a JSON object { tokens, attentions } or { tokens, attention }, got ${describe(json)}`);

  // An own data field, read once (an export's other keys are not the import's: not read).
  const own = (object, key, where) => {
    try {
      return Object.hasOwn(object, key) ? object[key] : undefined;
    } catch (error) {
      throw invalid(`${where} could not be read (${error.message})`);
    }
  };
  // A list's length, read once: an array's, or a typed array's (a Proxy's trap may throw).
  const lengthOf = (list, where, expected) => {
    if (!Array.isArray(list) && !ArrayBuffer.isView(list)) throw invalid(`${where} must be ${expected}, got ${describe(list)}`);
    try {
      return list.length;
    } catch (error) {
      throw invalid(`${where}.length could not be read (${error.message})`);
    }
  };
  const entry = (list, i, where) => {
    try {
      return list[i];
    } catch (error) {
      throw invalid(`${where}[${i}] could not be read (${error.message})`);
    }
  };

  const tokens = own(json, 'tokens', 'tokens');
  const attentions = own(json, 'attentions', 'attentions');
  const attention = own(json, 'attention', 'attention');
  if ((attentions === undefined) === (attention === undefined))
    throw invalid('give either attentions ([layer][batch][head][query][key]) or attention ([head][query][key]), not both or neither');
  if (tokens === undefined) throw invalid('tokens is missing');
  const { importLayers, importValues, maxHeads, traceTokens } = h.limits;

  // The sizes, before anything is converted.
  const n = lengthOf(tokens, 'tokens', 'an array of strings (the tokens, in order)');
  if (n < 2 || n > traceTokens)
    throw (n < 2 ? invalid : tooLarge)(`tokens must be a whole number from 2 to ${traceTokens}, got ${n} (lab.limits().traceTokens)`);
  const layerCount = attentions === undefined ? 1 : lengthOf(attentions, 'attentions', ARRAY_EXPECTED.attentions);
  if (layerCount === 0) throw new AttnLabError('empty', 'the attention has no layers');
  if (layerCount > importLayers) throw tooLarge(`layers must be a whole number from 1 to ${importLayers}, got ${layerCount} (lab.limits().importLayers)`);
  // Layer l's list of heads (one sequence of its batch when the form is [layer][batch][head]).
  const headsAt = (l) => {
    if (attentions === undefined) return { heads: attention, where: 'attention' };
    const batch = entry(attentions, l, 'attentions');
    const sequences = lengthOf(batch, `attentions[${l}]`, `an array: the batch of layer ${l + 1}`);
    if (sequences !== 1)
      throw new AttnLabError('shape-mismatch', `attentions[${l}] holds a batch of ${sequences} sequences: export one sequence (batch size 1)`);
    return { heads: entry(batch, 0, `attentions[${l}]`), where: `attentions[${l}][0]` };
  };
  const first = headsAt(0);
  const headCount = lengthOf(first.heads, first.where, ARRAY_EXPECTED.attention);
  if (headCount === 0) throw new AttnLabError('empty', 'layer 1 has no heads');
  if (headCount > maxHeads) throw tooLarge(`heads must be a whole number from 1 to ${maxHeads}, got ${headCount} (lab.limits().maxHeads)`);
  if (layerCount * headCount * n * n > importValues) {
    throw tooLarge(`${layerCount} layers × ${headCount} heads × ${n} × ${n} tokens are more than ${importValues} weights (lab.limits().importValues)`);
  }

  // Each head's shape (n × n), then its cells: at most importValues of them in all.
  const shapeError = (l, k, rows, cols) =>
    new AttnLabError(
      'shape-mismatch',
      `layer ${l + 1}, head ${k + 1} is ${rows}×${cols}, but there are ${n} tokens: each head's weights must be ${n}×${n} (a row per query, a column per key)`,
    );
  const headOf = (matrix, where, l, k) => {
    if (Array.isArray(matrix)) {
      // Rows past the token limit are not walked; the rows' lengths first (ragged), then n × n.
      const rows = lengthOf(matrix, where, 'an array of rows');
      const cols = rows === 0 ? 0 : lengthOf(entry(matrix, 0, where), `${where}[0]`, 'an array');
      if (rows === 0 || rows > traceTokens) throw shapeError(l, k, rows, cols);
      for (let r = 1; r < rows; r++) {
        const length = lengthOf(entry(matrix, r, where), `${where}[${r}]`, 'an array');
        if (length !== cols) throw new AttnLabError('shape-mismatch', `${where} is ragged: row ${r + 1} has ${length} entries but row 1 has ${cols}`);
      }
      if (rows !== n || cols !== n) throw shapeError(l, k, rows, cols);
    } else if (matrix !== null && typeof matrix === 'object' && !ArrayBuffer.isView(matrix)) {
      // { rows, cols, data }: its declared shape, then the length of its data.
      const rows = own(matrix, 'rows', `${where}.rows`);
      const cols = own(matrix, 'cols', `${where}.cols`);
      if (Number.isInteger(rows) && Number.isInteger(cols)) {
        if (rows !== n || cols !== n) throw shapeError(l, k, rows, cols);
        const data = own(matrix, 'data', `${where}.data`);
        const values = lengthOf(data, `${where}.data`, 'a typed array or an array of numbers');
        if (values !== n * n) throw new AttnLabError('shape-mismatch', `${where}.data has ${values} values but ${where} is ${n}×${n} (${n * n} values)`);
      }
    }
    const out = h.toCoreMatrix(where, matrix); // checks every cell; a Proxy that answered otherwise above is caught below
    if (out.rows !== n || out.cols !== n) throw shapeError(l, k, out.rows, out.cols);
    return out;
  };
  const layers = [];
  for (let l = 0; l < layerCount; l++) {
    const { heads, where } = l === 0 ? first : headsAt(l);
    const count = lengthOf(heads, where, ARRAY_EXPECTED.attention);
    if (count !== headCount)
      throw new AttnLabError('shape-mismatch', `layer ${l + 1} has ${count} heads but layer 1 has ${headCount}: every layer needs the same heads`);
    const layer = [];
    for (let k = 0; k < count; k++) layer.push(headOf(entry(heads, k, where), `${where}[${k}]`, l, k));
    layers.push(layer);
  }
  const label = (value, where, i) => {
    if (typeof value !== 'string') throw invalid(`${where}[${i}] is ${describe(value)}, not a string`);
    return value;
  };
  const labels = h.readList('tokens', tokens, label, 'an array of strings');
  return { tokens: labels, layers };
}
