// Predict, then reveal: with the state's `predict` on, the stepper hides a step's result
// until the learner has guessed something about it: its shape (every step), and what the
// step's registry entry asks beyond that (steps.js: which key gets the largest value in one
// query row, what that row adds up to). Questions and answers are read off the core's
// trace, never recomputed; the answers are recorded under the progress topic PREDICT_TOPIC.
import { html, nothing } from 'lit';

import { fmt, shape, sub } from '../shared/format.js';
import { PREDICT_TOPIC, predictionId, recordAnswer } from '../shared/progress.js';
import { stepEntry } from '../steps/registry.js';
// Predictions remembered (the oldest are forgotten first).
const MAX_ENTRIES = 200;
// Entries this close to the row's maximum count as tied: they print the same to 4 decimals.
const TIE = 1e-6;

const shapeLabel = ([rows, cols]) => shape(rows, cols);
const shapeValue = ([rows, cols]) => `${rows}x${cols}`;
const sizeOf = (values) => [values.length, values[0]?.length ?? 0];

/**
 * The prediction questions for step `id` of `trace` (its first head where there are several).
 * Each: { kind, prompt, options: [{ value, label, number? }], correct: Set of values,
 * explanation, row?, head? }. `labels` are tokenLabels(state).
 */
function predictionQuestions(panel, trace, id, labels) {
  if (!panel) return [];
  const asks = stepEntry(id).predict ?? {};
  const questions = [shapeQuestion(panel, asks)];
  // Which key wins a row is asked only of a row with one winner: never two right answers.
  const row = asks.largest ? chosenRow(panel.step.values) : -1;
  if (row >= 0) {
    questions.push(largestQuestion(panel, asks.largest, row, topKeys(panel.step.values[row]), labels));
    if (asks.rowSum) questions.push(rowSumQuestion(panel, row, trace.fullyMaskedRows[panel.head ?? 0].includes(row), labels));
  }
  return questions;
}

function headNote(panel) {
  return panel.head === undefined ? '' : ` (head ${panel.head + 1})`;
}

function shapeQuestion(panel, asks) {
  const result = panel.step.shape;
  const [rows, cols] = result;
  const operands = panel.operands.map((o) => sizeOf(o.values));
  // Plausible wrong shapes: the operands' shapes, transposes, squares, a column, a row.
  const candidates = [
    result,
    [cols, rows],
    ...operands,
    ...operands.map(([r, c]) => [c, r]),
    [rows, rows],
    [cols, cols],
    [rows, 1],
    [1, cols],
    [2 * rows, cols],
  ];
  const seen = new Set();
  const options = [];
  for (const candidate of candidates) {
    const value = shapeValue(candidate);
    if (seen.has(value) || options.length === 4) continue;
    seen.add(value);
    options.push({ value, label: shapeLabel(candidate), size: candidate });
  }
  options.sort((a, b) => a.size[0] - b.size[0] || a.size[1] - b.size[1]);
  return {
    kind: 'shape',
    head: panel.head,
    prompt: `What shape is the result of this step${headNote(panel)}?`,
    options: options.map(({ value, label }) => ({ value, label })),
    correct: new Set([shapeValue(result)]),
    explanation: shapeExplanation(panel, asks, operands),
  };
}

function shapeExplanation(panel, asks, operands) {
  const result = shapeLabel(panel.step.shape);
  const [a, b] = panel.operands;
  if (asks.elementwise) {
    return `${a.caption} is ${shapeLabel(operands[0])}, and this step ${asks.elementwise}, so the result keeps that shape: ${result}.`;
  }
  if (asks.sideBySide) {
    return `The ${operands.length} head outputs, each ${shapeLabel(operands[0])}, are put side by side: the same rows, their columns added up: ${result}.`;
  }
  // A matrix product, its operands as drawn (the scores' K as Kᵀ).
  const [right, rightName] = [operands[1], b.caption];
  return (
    `${a.caption} (${shapeLabel(operands[0])}) times ${rightName} (${shapeLabel(right)}): ` +
    `one row per row of ${a.caption}, one column per column of ${rightName}, so ${result}.`
  );
}

// The row to ask about: the first whose largest entry is unique, or -1 when none is.
const chosenRow = (values) => values.findIndex((row) => topKeys(row).length === 1);

function topKeys(row) {
  const finite = row.filter(Number.isFinite);
  if (!finite.length) return row.map((_, j) => j);
  const max = Math.max(...finite);
  return row.flatMap((v, j) => (Number.isFinite(v) && max - v <= TIE * Math.max(1, Math.abs(max)) ? [j] : []));
}

// `winner`: the one key with the largest value in `row`.
function largestQuestion(panel, { noun, reason }, row, [winner], labels) {
  const values = panel.step.values[row];
  const query = labels.queries[row];
  const keyName = (j) => labels.keys[j] ?? `k${sub(j)}`;
  const listed = values.map((v, j) => `${keyName(j)} = ${fmt(v)}`).join(', ');
  return {
    kind: 'largest',
    row,
    head: panel.head,
    prompt: `In row ${query}${headNote(panel)}, which key gets the largest ${noun}?`,
    options: values.map((_, j) => ({ value: String(j), label: keyName(j) })),
    correct: new Set([String(winner)]),
    explanation: `Row ${query} holds ${listed}; the largest is ${keyName(winner)} with ${fmt(values[winner])}. ${capitalise(reason)}`,
  };
}

// `masked`: the core reports the row in fullyMaskedRows (every key masked).
function rowSumQuestion(panel, row, masked, labels) {
  const { rowTotals, rowSum } = panel.step;
  const total = rowTotals[row];
  const keys = panel.step.shape[1];
  const options = [];
  for (const number of [0, 1, keys, rowSum[row]]) {
    const label = fmt(number);
    if (!options.some((o) => o.label === label)) options.push({ value: String(number), label, number });
  }
  options.sort((a, b) => a.number - b.number);
  // The right option is the one the core's row total matches.
  const nearest = options.reduce((best, o) => (Math.abs(o.number - total) < Math.abs(best.number - total) ? o : best));
  const query = labels.queries[row];
  return {
    kind: 'row-sum',
    row,
    head: panel.head,
    prompt: `What do the weights in row ${query}${headNote(panel)} add up to?`,
    options: options.map(({ value, label }) => ({ value, label })),
    correct: new Set([nearest.value]),
    explanation: masked
      ? `Every key of row ${query} is masked, so attnlab defines its weights as zeros: the row adds up to ${fmt(total)}.`
      : `Each weight of row ${query} is exp(s̃ − m) divided by Σ = ${fmt(rowSum[row])}, the sum of that row’s exponentials, ` +
        `so the weights add up to ${fmt(total)} (the row totals beside the result). Σ is what they are divided by, not their total.`,
  };
}

const capitalise = (text) => text.charAt(0).toUpperCase() + text.slice(1);

/**
 * Keeps the learner's predictions for the stepper (a Lit reactive controller). A prediction
 * belongs to a step and to its questions' right answers: an edit that changes an answer asks
 * again, one that does not keeps the step revealed.
 */
export class PredictController {
  constructor(host) {
    this.host = host;
    this._entries = new Map(); // step id + questions → { choices: {kind: value}, checked }
    host.addController(this);
  }

  /**
   * For step `id`, shown as `panels` (panels.js): { hidden, template }. `hidden` says whether
   * the result stays hidden; `template` is the question form (nothing when predict is off).
   */
  forStep(panels, trace, predict, id, labels) {
    if (!predict) return { hidden: false, template: nothing };
    const questions = predictionQuestions(panels[0], trace, id, labels);
    // Keyed by what the learner predicts, not by every number: nudging the temperature
    // keeps a revealed step revealed until its right answers change.
    const key = JSON.stringify([id, questions.map((q) => [q.kind, q.prompt, [...q.correct]])]);
    if (!this._entries.has(key)) {
      if (this._entries.size >= MAX_ENTRIES) this._entries.delete(this._entries.keys().next().value);
      this._entries.set(key, { choices: {}, checked: false, revealed: false });
    }
    const entry = this._entries.get(key);
    return { hidden: !entry.revealed, template: this._form(id, questions, entry) };
  }

  _update(entry, change) {
    Object.assign(entry, change);
    this.host.requestUpdate();
  }

  _check(id, questions, entry) {
    if (!questions.every((q) => entry.choices[q.kind] !== undefined)) return;
    for (const q of questions) recordAnswer(PREDICT_TOPIC, predictionId(id, q.kind), q.correct.has(entry.choices[q.kind]));
    this._update(entry, { checked: true, revealed: true });
  }

  _form(id, questions, entry) {
    const ready = questions.every((q) => entry.choices[q.kind] !== undefined);
    return html`<form class="predict" data-role="predict" data-checked=${entry.checked ? 'true' : 'false'} aria-label="Predict, then reveal"
      @submit=${(e) => {
        e.preventDefault();
        this._check(id, questions, entry);
      }}>
      <p>${entry.revealed ? 'Your prediction, and the result below.' : 'Predict first: the result stays hidden until you answer.'}</p>
      ${questions.map((q) => this._question(q, entry))}
      ${
        entry.revealed
          ? nothing
          : html`<button type="submit" data-action="predict-check" ?disabled=${!ready}>Check and reveal</button>
            <button type="button" data-action="predict-reveal" @click=${() => this._update(entry, { revealed: true })}>Just show me</button>`
      }
    </form>`;
  }

  _question(q, entry) {
    const choice = entry.choices[q.kind];
    const right = q.correct.has(choice);
    return html`<fieldset data-question=${q.kind} data-row=${q.row ?? nothing} data-head=${q.head ?? nothing} ?disabled=${entry.revealed}>
      <legend>${q.prompt}</legend>
      ${q.options.map(
        (o) => html`<label class="option"
          ><input type="radio" name="predict-${q.kind}" value=${o.value} .checked=${choice === o.value}
            @change=${() => this._update(entry, { choices: { ...entry.choices, [q.kind]: o.value } })} />${o.label}</label
        >`,
      )}
      ${
        entry.revealed
          ? html`<p data-role="predict-feedback" data-correct=${entry.checked ? String(right) : nothing} role="status">
            ${entry.checked ? html`<span class=${right ? 'correct' : 'wrong'}>${right ? 'Right.' : 'Wrong.'}</span>` : nothing}
            <span data-role="predict-explanation">${q.explanation}</span>
          </p>`
          : nothing
      }
    </fieldset>`;
  }
}
