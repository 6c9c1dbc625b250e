// Every view of <attn-lab>, in the order of views/list.js: the stepper (which renders into the
// element itself) and each teaching view, the entry that views/ID/ID.js registers with
// defineView: { id, title, normalize?(viewState), render({ lab, viewState, message, stepper,
// trace, state }) }. The folders are found by the bundler (import.meta.glob: Vite), so a new
// view is its folder and its entry in the list, nothing here.
import { stepperView } from '../stepper/stepper.js';
import { StateError } from '../state-error.js';
import { VIEW_IDS, VIEW_LIST } from './list.js';

const MODULES = import.meta.glob('./*/*.js', { eager: true });

// The entry a view's module exports: the one defineView returned for that id.
function entryOf(id) {
  if (id === stepperView.id) return stepperView;
  const module = MODULES[`./${id}/${id}.js`];
  const entry = module && Object.values(module).find((value) => value?.id === id && typeof value.render === 'function');
  if (!entry) throw new Error(`views/list.js names the view "${id}", but views/${id}/${id}.js exports no defineView({ id: '${id}' })`);
  return entry;
}

export const VIEWS = VIEW_LIST.map(({ id }) => entryOf(id));

// A folder with its view module but no entry in the list is a view nobody can reach.
const unlisted = Object.keys(MODULES)
  .map((path) => /^\.\/([^/]+)\/\1\.js$/.exec(path)?.[1])
  .filter((id) => id && !VIEWS.some((view) => view.id === id));
if (unlisted.length) throw new Error(`views/${unlisted[0]}/ is not in views/list.js`);

export const viewById = (id) => VIEWS.find((view) => view.id === id);

// The state's view must exist and its view state pass that view's checks (filled with its
// defaults). Throws StateError.
export function checkedViewState({ view, viewState }) {
  const found = viewById(view);
  if (!found) throw new StateError(`there is no view "${view}" (views: ${VIEW_IDS.join(', ')})`);
  return found.normalize ? found.normalize(viewState) : {};
}
