// Pieces of a cell's explanation: the computation written out with the actual numbers.
// Every number comes from the trace (results and operands); these helpers only lay them
// side by side. The per-step explanations that use them are in steps.js.
import { fmt, fmtTerm as term, sub } from '../shared/format.js';

const column = (m, c) => m.map((row) => row[c]);

/** One head's query × key grid, its cells coloured as `heat` (scores, weights, gradients). */
export const headCells = (heat) => ({ rows: 'queries', cols: 'keys', heat, perHead: true });

/** "a·b" subscripts of cell (row, col): "₁₂". */
export const at = (row, col) => `${sub(row)}${sub(col)}`;

/**
 * A matrix product's cell written out: row `row` of the first operand (as drawn) against
 * column `col` of the second. `name` is what the cell is called, e.g. "Q₁₂" or "q₁·k₂".
 */
export function productCell({ panel, row, col, value }, name) {
  const [a, b] = panel.operands;
  const right = column(b.values, col);
  const products = a.values[row].map((x, l) => `${term(x)}×${term(right[l])}`).join(' + ');
  return { text: `${name} = ${products} = ${fmt(value)}`, highlight: [{ rows: [row] }, { cols: [col] }] };
}

/** The explanation of a product step whose result is called `symbol`, cell by cell. */
export const productOf = (symbol) => (cell) => productCell(cell, `${symbol}${at(cell.row, cell.col)}`);
