// The DOM's table cells (td and th), counted through every shadow root: what the large-matrix
// test bounds and the page benchmark reports. It runs in the page (page.evaluate, or as an init
// script from its source), so it uses nothing outside its own body.
export function countCells() {
  let count = 0;
  const walk = (root) => {
    count += root.querySelectorAll('td, th').length;
    for (const element of root.querySelectorAll('*')) if (element.shadowRoot) walk(element.shadowRoot);
  };
  walk(document);
  return count;
}
