// Types of attnlab/element (dist/element.js): importing it registers <attn-lab> in a browser
// (in Node, for server-side rendering, it imports cleanly and registers nothing).
// Hand-written to match web/element/README.md; the state's schema is in web/element/state.js,
// its request fields those of trace() (the interfaces attnlab.d.ts generates from the core).
// Copied into dist/ by the element build, beside attnlab.d.ts (hence './attnlab.js').
import type { AttentionOptions, Matrix, ProjectionInput, QKVInput, StepId, TraceFamilyOptions, TraceOptions } from './attnlab.js';

/**
 * Thrown by setState() for a malformed state: a field of the wrong type, an unknown field (a
 * key named like an Object.prototype property, "constructor" or "__proto__", is just that),
 * or a value that is not plain data (a function, a symbol, a Proxy, a getter, a cycle, a class
 * instance, a sparse array). The element shows its message and keeps the last good state.
 */
export declare class StateError extends Error {
  readonly name: 'StateError';
}

/** Every field of trace()'s request that the state mirrors, beside the ones typed below. */
type RequestFields = Partial<Omit<ProjectionInput & QKVInput & TraceOptions & TraceFamilyOptions & AttentionOptions, keyof StateFields>>;

/** The element's state, the same JSON as the page's URL (#s=…): the fields below and any other field of trace()'s request. */
export interface AttnLabState extends StateFields, RequestFields {}

/** The state's fields that every state has (a preset gives them), and the element's own. */
interface StateFields {
  mode: 'x' | 'qkv';
  X: Matrix;
  Wq: Matrix;
  Wk: Matrix;
  Wv: Matrix;
  /** null: no output projection. */
  Wo: Matrix | null;
  Q: Matrix;
  K: Matrix;
  V: Matrix;
  tokens: string[];
  heads: number;
  causal: boolean;
  /** One per key: true = padding, attended by no query. */
  keyPadding: boolean[];
  /** true where query i may attend to key j; null: no explicit mask. */
  mask: boolean[][] | null;
  /** true: 1/√d_k, false: no scaling, a number: that factor. */
  scale: boolean | number;
  temperature: number;
  positional: 'none' | 'sinusoidal';
  step: StepId;
  /** true: each step's result stays hidden until the learner has predicted it. */
  predict: boolean;
  /** true: the stepper runs forward then backward (the grad-* steps). */
  backward?: boolean;
  /** The upstream gradient at the output (∂L/∂O, or ∂L/∂Y after W_O), the output's shape; null: a default drawn from the core's seeded generator. */
  dOutput?: Matrix | null;
  /** What is on view: the stepper or one teaching view. */
  view: ViewId;
  /** The teaching view's own fields (sliders, the dragged query…); see the element README. */
  viewState: Record<string, unknown>;
  /** Where a state a view opened came from (the model view's head): its caption, the view and view state Back returns to, the heads' names. */
  origin?: { label: string; view: ViewId; viewState: Record<string, unknown>; heads?: string[] } | null;
}

/** A view's id: the build (vite.config.js) writes the ids of web/element/views/list.js here. */
export type ViewId = string;

/** A stepper preset, or a teaching view's id: that view on its own. */
export type PresetId = 'tiny' | 'self' | 'uniform' | 'sharp' | 'local' | 'causal' | 'bidirectional' | 'two-heads' | 'heads-differ' | Exclude<ViewId, 'stepper'>;

export interface StepChangeDetail {
  step: StepId;
}

export interface StateChangeDetail {
  state: AttnLabState;
}

export declare class AttnLabElement extends HTMLElement {
  /** The preset the element starts from (attribute `preset`). */
  preset?: PresetId;
  /** A JSON state (AttnLabState, partial) merged over the preset (attribute `state`). */
  state?: string;
  /** The step on view (attribute `step`); an embed given one leads with its result. */
  step?: StepId;
  /** The stepper (the default) or a teaching view (attribute `view`). */
  view?: ViewId;
  /** A tab bar to switch between the stepper and every view (attribute `tabs`). */
  tabs?: boolean;
  /** false: the inputs are read-only (attribute `editable="false"`). */
  editable: boolean;
  /** auto (the default) follows the host page's colour scheme (attribute `theme`). */
  theme: 'light' | 'dark' | 'auto';
  /** Reads and writes the state in location.hash (attribute `url-state`). */
  urlState?: boolean;
  /** The input editors: shown (the default), collapsed or hidden. */
  inputs?: 'shown' | 'collapsed' | 'hidden';
  /** The controls: full (the default), minimal (step navigation only) or none. */
  controls?: 'full' | 'minimal' | 'none';
  /** Leaves out the "Predict, then reveal" switch (attribute `no-predict`). */
  noPredict: boolean;
  /** Leaves out the teaching views' quizzes (attribute `no-quiz`). */
  noQuiz: boolean;
  /** Merges a (partial) state and recomputes; throws a StateError on a malformed state. */
  setState(partial: Partial<AttnLabState>): void;
  /** A copy of the current state. */
  getState(): AttnLabState;
  /** Shows a step; false when this trace has no such step. */
  goToStep(id: StepId): boolean;
  /** Shows the stepper or a teaching view; false for an unknown view. */
  showView(id: ViewId): boolean;
  /** Resolves once pending changes are rendered (the element is a LitElement). */
  readonly updateComplete: Promise<boolean>;
}

declare global {
  interface HTMLElementTagNameMap {
    'attn-lab': AttnLabElement;
  }
  interface HTMLElementEventMap {
    'step-change': CustomEvent<StepChangeDetail>;
    'state-change': CustomEvent<StateChangeDetail>;
  }
}
