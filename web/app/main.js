// The page is a shell: <attn-lab> does all of the computing and rendering.
// An import for its side effect (registering the element): package.json's "sideEffects"
// lists this file, or the bundler, told the package is otherwise pure, would drop it.
import '../element/attn-lab.js';
import './long-sequence.js';
import { initThemeSwitch } from './theme.js';

initThemeSwitch({
  switchElement: document.querySelector('.theme-switch'),
  lab: document.querySelector('attn-lab'),
});
