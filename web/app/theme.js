// The light/dark/auto switch: one choice drives the page colours (data-theme on <html>)
// and the element's `theme` attribute, and is remembered for the next visit.
const THEMES = ['light', 'dark', 'auto'];
const STORAGE_KEY = 'attnlab-theme';

function storedTheme() {
  try {
    const theme = localStorage.getItem(STORAGE_KEY);
    return THEMES.includes(theme) ? theme : 'auto';
  } catch {
    return 'auto'; // storage can be disabled; the switch still works for this visit
  }
}

function applyTheme(theme, lab) {
  document.documentElement.dataset.theme = theme;
  lab.setAttribute('theme', theme);
  try {
    localStorage.setItem(STORAGE_KEY, theme);
  } catch {
    // not remembered, nothing else lost
  }
}

export function initThemeSwitch({ switchElement, lab }) {
  const theme = storedTheme();
  switchElement.querySelector(`input[value="${theme}"]`).checked = true;
  applyTheme(theme, lab);
  switchElement.addEventListener('change', (event) => applyTheme(event.target.value, lab));
}
