// Types of attnlab/react: <attn-lab> in React 19's JSX. A TSX project opts in once:
//   import type {} from 'attnlab/react';
// Apart from element.d.ts, so that a project without React's types still type-checks.
// Copied into dist/ by the element build.
import type { HTMLAttributes, RefAttributes } from 'react';

import type { StepId } from './attnlab.js';
import type { AttnLabElement, PresetId, StateChangeDetail, StepChangeDetail, ViewId } from './element.js';

/**
 * <attn-lab>'s props. React 19 sets a prop as the element's property where it has one by
 * that name (preset, noQuiz…), else as an attribute (url-state, no-predict…: true gives the
 * empty string, false removes it); `onstep-change` listens to the step-change event.
 */
export interface AttnLabProps extends HTMLAttributes<AttnLabElement>, RefAttributes<AttnLabElement> {
  preset?: PresetId;
  state?: string;
  step?: StepId;
  view?: ViewId;
  tabs?: boolean;
  editable?: boolean;
  theme?: 'light' | 'dark' | 'auto';
  inputs?: 'shown' | 'collapsed' | 'hidden';
  controls?: 'full' | 'minimal' | 'none';
  urlState?: boolean;
  'url-state'?: boolean;
  noPredict?: boolean;
  'no-predict'?: boolean;
  noQuiz?: boolean;
  'no-quiz'?: boolean;
  'onstep-change'?: (event: CustomEvent<StepChangeDetail>) => void;
  'onstate-change'?: (event: CustomEvent<StateChangeDetail>) => void;
}

declare module 'react' {
  namespace JSX {
    interface IntrinsicElements {
      'attn-lab': AttnLabProps;
    }
  }
}
