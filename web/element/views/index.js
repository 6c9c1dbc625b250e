// Every view of <attn-lab>, in tab order. The ids are the same in the state (`view`), the
// URL, the `view` attribute, the presets and the tabs. The stepper renders into the element
// itself; each other view is a nested element that teaches one idea. An entry is
// { id, title, normalize?(viewState), render({ lab, viewState, message, stepper }) }.
import { stepperView } from '../stepper/stepper.js';
import { geometryView } from './geometry.js';
import { scalingView } from './scaling.js';
import { softmaxView } from './softmax.js';
import { patternsView } from './patterns.js';
import { positionsView } from './positions.js';
import { costView } from './cost.js';
import { quizView } from './quiz.js';

export const VIEWS = [stepperView, geometryView, scalingView, softmaxView, patternsView, positionsView, costView, quizView];

export const VIEW_IDS = VIEWS.map((view) => view.id);

export const viewById = (id) => VIEWS.find((view) => view.id === id);
