// Opening the model view in a test page, and reading its next-token bars: shared by the model
// view's tests.
import { encodeHash, presetState } from './expected.js';
import { settle } from './lab-page.js';

export const MODEL_VIEW = 'attn-lab attn-model-view';

/** The page's link to the model view with `viewState`. */
export const modelLink = (viewState) => `index.html${encodeHash({ ...presetState('tiny'), view: 'model', viewState })}`;

/** Opens the model view (session: browserSession's) and waits for its next-token bars. */
export async function openModel(session, t, viewState = {}, options = {}) {
  const opened = await session.open(t, modelLink(viewState), { view: 'model', ...options });
  await opened.page.locator(`${MODEL_VIEW} [data-role="next-tokens"]`).waitFor({ timeout: 30_000 });
  await settle(opened.page);
  return opened;
}

/** The next-token bars on view: [token id, probability] each. */
export const shownNext = (page) =>
  page.locator(`${MODEL_VIEW} [data-role="next-tokens"] tbody tr`).evaluateAll((rows) => rows.map((r) => [Number(r.dataset.token), Number(r.dataset.value)]));
