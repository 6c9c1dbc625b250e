// Every view of <attn-lab>, in tab order. The ids are the same in the state (`view`), the
// URL, the `view` attribute, the presets and the tabs. The stepper renders into the element
// itself; each other view is a nested element that teaches one idea. An entry is
// { id, title, normalize?(viewState), render({ lab, viewState, message, stepper, trace, state }) }.
import { stepperView } from '../stepper/stepper.js';
import { geometryView } from './geometry/geometry.js';
import { scalingView } from './scaling/scaling.js';
import { softmaxView } from './softmax/softmax.js';
import { patternsView } from './patterns/patterns.js';
import { tokensView } from './tokens/tokens.js';
import { positionsView } from './positions/positions.js';
import { costView } from './cost/cost.js';
import { flashView } from './flash/flash.js';
import { variantsView } from './variants/variants.js';
import { longSequenceView } from './long-sequence/long-sequence.js';
import { trainView } from './train/train.js';
import { modelView } from './model/model.js';
import { quizView } from './quiz/quiz.js';

export const VIEWS = [stepperView, geometryView, scalingView, softmaxView, patternsView, tokensView, positionsView, costView, flashView, variantsView, longSequenceView, trainView, modelView, quizView];

export const VIEW_IDS = VIEWS.map((view) => view.id);

export const viewById = (id) => VIEWS.find((view) => view.id === id);
