// A flat row-major matrix as the core sends it, { rows, cols, data: typed array }, as nested
// rows of plain numbers (copied). The one conversion: the package's results (matrices.js) and
// the element's own calls that return flat matrices (lab.normalMatrix) both use it.
export function nestedMatrix({ rows, cols, data }) {
  const out = new Array(rows);
  for (let r = 0; r < rows; r++) out[r] = plainList(data, r * cols, (r + 1) * cols);
  return out;
}

// data[start … end) as a plain array. A counted loop into a preallocated array: Array.from
// walks a typed array through its iterator, about 40× slower (a model forward pass's 557,000
// numbers took ~40 ms that way in Node 20, ~1.5 ms this way).
export function plainList(data, start = 0, end = data.length) {
  const out = new Array(end - start);
  for (let i = start; i < end; i++) out[i - start] = data[i];
  return out;
}
