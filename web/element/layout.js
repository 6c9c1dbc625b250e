// How much of the stepper an embed shows, from the element's `inputs`, `controls` and `step`
// properties (README: "What an embed shows"). An unknown value is named in the element's
// message and the default applies.
const LAYOUT = { inputs: ['shown', 'collapsed', 'hidden'], controls: ['full', 'minimal', 'none'] };

/**
 * { inputs: 'shown'|'collapsed'|'hidden', controls: 'full'|'minimal'|'none', resultFirst } of
 * `host`. Given a `step`, an embed leads with that step (its result first), the controls and
 * inputs below it.
 */
export function embedLayout(host) {
  return {
    inputs: LAYOUT.inputs.includes(host.inputs) ? host.inputs : 'shown',
    controls: LAYOUT.controls.includes(host.controls) ? host.controls : 'full',
    resultFirst: Boolean(host.step), // the property: React 19 sets it, not the attribute
  };
}

/** The message naming `host`'s unknown inputs or controls values, or null when there are none. */
export function layoutProblem(host) {
  const problems = Object.entries(LAYOUT).flatMap(([name, values]) => {
    const value = host[name];
    return value != null && !values.includes(value) ? [`${name}="${value}" is not one of ${values.join(', ')}`] : [];
  });
  return problems.length ? `${problems.join('; ')}; the default is used.` : null;
}
