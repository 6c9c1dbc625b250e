// What the element should show, computed in Node by the built package from the element's
// state, through the tests' own state → request mapping (tests/support/state-request.js,
// written from the documented schema, not from the element's code).
import assert from 'node:assert/strict';

import { createAttnLab } from '../../../dist/attnlab.js';
import { maxAbsDiff } from '../../support/compare.js';
import { stateToTraceRequest } from '../../support/state-request.js';
import { dataStep, renderedResults } from './lab-page.js';

export { stateLink as encodeHash } from '../../support/state-link.js';
export { PRESET_IDS, presetState } from './presets.js';

/** The preset the element opens with when it is given none (page.test.js checks it). */
export const DEFAULT_PRESET = 'tiny';

export const TOLERANCE = 1e-6;

const lab = await createAttnLab();

/** lab.trace() of the state's request, with `extra` request fields (ones the tests' mapping does not read). */
export const expectedTrace = (state, extra = {}) => lab.trace({ ...stateToTraceRequest(state), ...extra });

/** The distinct step ids of a trace, in order (per-head steps repeat in the trace). */
export const stepIds = (trace) => [...new Set(trace.steps.map((step) => step.id))];

export { maxAbsDiff };

/**
 * Compares the result tables rendered for `stepId` (see renderedResults) with the trace:
 * one table per trace step of that id, heads in order. Returns the largest difference;
 * throws when tables are missing or extra.
 */
export function diffStep(tables, trace, stepId) {
  const want = trace.steps.filter((step) => step.id === stepId);
  const got = tables.filter((table) => table.matrix === stepId).sort((a, b) => (a.head ?? -1) - (b.head ?? -1));
  if (got.length !== want.length) {
    throw new Error(`step ${stepId}: ${got.length} result tables rendered, the trace has ${want.length}`);
  }
  return Math.max(...want.map((step, i) => maxAbsDiff(got[i].values, step.values)));
}

/** Asserts that the step on view is `id` and renders the trace's numbers for it. */
export async function assertStepMatches(page, trace, id) {
  assert.equal(await dataStep(page), id);
  const diff = diffStep(await renderedResults(page), trace, id);
  assert.ok(diff <= TOLERANCE, `step ${id}: max abs diff ${diff} from lab.trace()`);
}
