// Every view of <attn-lab>, in tab order: the one list that the tabs, the `view` attribute
// and state field, the presets, the quiz topics, the typings' ViewId, the manifest, the
// screenshot script and the view tests take their ids from. A view is its folder,
// views/ID/ID.js (whose defineView({ id, title, element, fields }) registers <attn-ID-view>),
// and one entry in list.json: { id, preset: [name, description] of <attn-lab preset="ID">, topic:
// the title of its quiz topic, when it has questions (shared/quiz-questions.js) }.
// Plain data, in list.json: Node (tests, scripts, the build) reads it without loading the views.
import VIEW_LIST from './list.json' with { type: 'json' };

export { VIEW_LIST };

export const VIEW_IDS = VIEW_LIST.map((view) => view.id);

/** The teaching views: every view but the stepper. */
export const TEACHING_VIEW_IDS = VIEW_IDS.filter((id) => id !== 'stepper');
