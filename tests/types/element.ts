// The JavaScript API of web/element/README.md (attnlab/element): its methods and events, and
// the lab calls its views are documented to make, type-checked under --strict.
import { AttnLabElement, StateError } from 'attnlab/element';
import type { AttnLabState, StateChangeDetail, StepChangeDetail } from 'attnlab/element';
import { createAttnLab } from 'attnlab';
import type { Matrix, ProjectionTraceRequest } from 'attnlab';

const element = document.querySelector('attn-lab');
if (element) {
  element satisfies AttnLabElement;
  // setState(partial) merges a (partial) state; a malformed one throws StateError.
  try {
    element.setState({ heads: 2, causal: true, step: 'softmax', rope: true, window: { left: 2 } });
  } catch (error) {
    if (error instanceof StateError) error.message satisfies string;
  }
  element.getState() satisfies AttnLabState;
  element.goToStep('mask') satisfies boolean;
  element.showView('geometry') satisfies boolean;
  element.addEventListener('step-change', (event) => event.detail.step satisfies StepChangeDetail['step']);
  element.addEventListener('state-change', (event) => event.detail.state satisfies StateChangeDetail['state']);
  element.preset = 'causal';
  element.inputs = 'collapsed';
  element.controls = 'minimal';
  element.theme = 'dark';
  await element.updateComplete;
}
document.createElement('attn-lab').step = 'softmax';

// The views' calls into the core.
declare const Q: Matrix, K: Matrix, V: Matrix, scores: number[], temperature: number;
declare const request: ProjectionTraceRequest, order: number[];
const lab = await createAttnLab();
const n = 8, d = 4, seed = 1, positions = 16, width = 8, dims = [4, 16, 64];
lab.attention({ Q, K, V });
lab.flashWalk({ Q, K, V, causal: true, queryRows: 2, keyRows: 2 }).events[0].rescale satisfies number[];
lab.tilePlan({ headWidth: d })?.workgroupStorageBytes;
lab.trace({ Q, K, V, rope: true, alibi: true, window: 3, causal: true });
lab.trace({ Q, K, V, family: 'linear', featureMap: 'favor', features: 64, seed: 2, causal: true });
lab.trace({ Q, K, V, family: 'retention', decay: 0.9 });
document.querySelector('attn-lab')?.setState({ family: 'linear', featureMap: 'relu' });
lab.decode({ Q, K, V, rope: true });
lab.kvCacheBytes({ layers: 32, kvHeads: 8, headWidth: 128, bytesPerValue: 2 });
lab.normalMatrix({ rows: 3 * n, cols: d, seed: 17 });
await lab.loadLearning();
lab.checkGradient({ ...request, dOutput: Q }, { parameter: 'Wo', row: 0, col: 0 });
lab.softmaxBreakdown(scores, temperature).withoutMax.overflowed satisfies boolean;
lab.scalingStudy({ dims, keys: 16, samples: 256, seed }).maxEntropy satisfies number;
lab.sinusoidalEncoding({ positions, width });
lab.permutationCheck(request, order).tolerance satisfies number;
lab.resetPeakMemory();
lab.naiveAttention({ Q, K, V });
lab.flashAttention({ Q, K, V });
lab.memoryStats().peakTrackedBytes satisfies number;
lab.normalMatrix({ rows: 3 * n, cols: d, seed });
lab.sampledWeights({ Q, K, rows: [0], cols: [0, 1] });
const model = await lab.loadModel();
const probe = model.inductionProbe(32, 1);
model.headScores(probe, 32)[0][0].induction satisfies number | undefined;
model.headWeights(0, 0).Wq satisfies Matrix;
const imported = await lab.importAttention({ tokens: ['a', 'b'], attention: [[[1, 0], [0.5, 0.5]]] });
[imported.tokens, imported.attention, imported.scores[0][0].role];
await lab.importAttention({ tokens: ['a'], attentions: [[[[[1]]]]] });
