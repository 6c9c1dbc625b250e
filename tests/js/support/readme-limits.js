// The README's "Limits" table, { field: value }: the documented limits, the tests' oracle for
// lab.limits() and for the sizes the limits tests run at.
import { readFileSync } from 'node:fs';

export const README_LIMITS = Object.fromEntries(
  [...readFileSync('README.md', 'utf8').matchAll(/^\| `(\w+)` \| (\d+) \|/gm)].map(([, name, value]) => [name, Number(value)]),
);
