// ESLint over the JavaScript we write (web/, scripts/, tests/): the recommended rules, with
// the browser's and Node's globals (the package runs in both).
import js from '@eslint/js';
import globals from 'globals';

export default [
  {
    ignores: [
      'build/',
      'dist/',
      'web/dist/',
      'docs/',
      'python/',
      'node_modules/',
      'web/examples/*/dist/',
      'tests/e2e/fixtures/',
      'web/lib/core-lists.js',
      'cpp/bindings/*.pre.js' /* Emscripten's pre-js: a script inside its loader */,
    ],
  },
  js.configs.recommended,
  {
    files: ['**/*.{js,mjs,cjs}'],
    languageOptions: { ecmaVersion: 'latest', sourceType: 'module', globals: { ...globals.browser, ...globals.node } },
    rules: { 'no-unused-vars': ['error', { ignoreRestSiblings: true, argsIgnorePattern: '^_', caughtErrors: 'none' }] },
  },
];
