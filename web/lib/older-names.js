// A result field renamed for one name per concept keeps its older name readable, so code
// written against it goes on working; not enumerable, so results list (and copy) the new
// name only.

/** `object`, with `older` readable as the value of `newer`. */
export function withOlderName(object, older, newer) {
  return Object.defineProperty(object, older, { value: object[newer] });
}
