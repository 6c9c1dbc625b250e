// Every JavaScript call in the README ("Four ways to use attnlab"), type-checked under --strict
// against the package's typings. Its module example is the first of docs/javascript.md, word
// for word but for its last line (t.groups), so javascript.ts checks it; here the rest: the
// element's imports and what "Also there" names.
import 'attnlab/element';
import type {} from 'attnlab/react';
import { createAttnLab } from 'attnlab';
import type { Matrix } from 'attnlab';

declare const X: Matrix, Wq: Matrix, Wk: Matrix, Wv: Matrix, Wo: Matrix;

const lab = await createAttnLab(); // loads the wasm once
lab.trace({ X, Wq, Wk, Wv, Wo, heads: 2, causal: true, positional: 'sinusoidal' }).steps[0].operands;

// "Also there": the backward pass, a trainer, the long-sequence flash kernel (with threads),
// attnlab/webgpu and a little language model.
await lab.loadLearning();
lab.trace({ X, Wq, Wk, Wv, Wo, heads: 2, dOutput: [[1, 0]] });
(await lab.trainer()).delete();
(await createAttnLab({ threads: true })).flashAttention({ Q: X, K: X, V: X, causal: true, threads: 2 });
const model = await lab.loadModel();
model.forward(model.tokenize('The Congress').tokenIds).logits;
export {};
