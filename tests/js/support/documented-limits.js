// The "Limits" table of the docs (docs/javascript.md), { field: value }: the documented limits,
// the tests' oracle for lab.limits() and for the sizes the limits tests run at.
import { readFileSync } from 'node:fs';

export const DOCUMENTED_LIMITS = Object.fromEntries(
  [...readFileSync('docs/javascript.md', 'utf8').matchAll(/^\| `(\w+)` \| (\d+) \|/gm)].map(([, name, value]) => [name, Number(value)]),
);
if (Object.keys(DOCUMENTED_LIMITS).length < 10) throw new Error('docs/javascript.md has no Limits table');
