// A flat row-major matrix as the core sends it, { rows, cols, data: typed array }, as nested
// rows of plain numbers (copied). The one conversion: the package's results (matrices.js) and
// the element's own calls that return flat matrices (lab.normalMatrix) both use it.
export function nestedMatrix({ rows, cols, data }) {
  return Array.from({ length: rows }, (_, r) => Array.from(data.subarray(r * cols, (r + 1) * cols)));
}
