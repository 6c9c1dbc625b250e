// <attn-lab> in React 19, which passes a custom element's props through: as properties where
// the element has them (preset, step, noQuiz), else as attributes (no-predict), and
// `onstep-change` as a listener for the element's step-change event.
import { useState } from 'react';
import 'attnlab/element'; // registers <attn-lab>
import type {} from 'attnlab/react'; // its JSX typings
import type { PresetId, StepChangeDetail } from 'attnlab/element';

export function App() {
  const [preset, setPreset] = useState<PresetId>('causal');
  const [step, setStep] = useState('');
  return (
    <main>
      <h1>Attention in React</h1>
      <p>
        <button type="button" id="two-heads" onClick={() => setPreset('two-heads')}>
          Two heads
        </button>{' '}
        Step on view: <output id="step">{step}</output>
      </p>
      <attn-lab
        preset={preset}
        step="softmax"
        inputs="collapsed"
        no-predict
        noQuiz
        onstep-change={(event: CustomEvent<StepChangeDetail>) => setStep(event.detail.step)}
      />
    </main>
  );
}
