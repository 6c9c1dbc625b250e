// The model view's parts beside and below the heads (each head's sentence, the roles explained,
// in-context learning, interventions, rollout): a chunk of their own in a folder the views'
// eager glob (views/index.js) does not reach, loaded with the model on the view's first
// showing, so that the page's first load does not carry them.
import './incontext.js';
import './interventions.js';
import './roles.js';
import './rollout.js';

export { headSentence } from './roles.js';
