// The page is a shell: <attn-lab url-state tabs> does all of the computing and rendering,
// the long-sequence view included (a tab of the element), and this file adds the theme
// switch. It imports the element through the package's public entry, for its side effect of
// registering <attn-lab>; package.json's "sideEffects" lists the element's module, or the
// bundler, told the package is otherwise pure, would drop the import.
import 'attnlab/element';

import { initThemeSwitch } from './theme.js';

initThemeSwitch({
  switchElement: document.querySelector('.theme-switch'),
  lab: document.querySelector('attn-lab'),
});
