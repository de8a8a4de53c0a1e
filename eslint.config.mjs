// Lint keeps the architecture honest: the import direction of STYLE.md is a rule, not a hope.
import tseslint from 'typescript-eslint';

const ourLayers = (allowed) =>
  ['planner', 'cli', 'extension', 'webview']
    .filter((layer) => !allowed.includes(layer))
    .flatMap((layer) => [`**/${layer}/**`, `../${layer}/*`, `../../${layer}/*`]);

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', 'media/dist/**', '.test-output/**', 'test/e2e/output/**'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['**/*.cjs'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['src/planner/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'vscode', message: 'src/planner is pure: it knows nothing of VS Code.' }],
          patterns: [{ group: ourLayers(['planner']), message: 'src/planner imports nothing of ours outside src/planner.' }],
        },
      ],
    },
  },
  {
    files: ['src/cli/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'vscode', message: 'The CLI runs without VS Code.' }],
          patterns: [{ group: ourLayers(['planner', 'cli']), message: 'src/cli imports only src/planner.' }],
        },
      ],
    },
  },
  {
    files: ['src/extension/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: [...ourLayers(['planner', 'extension']), '!**/webview/protocol'],
              message: 'src/extension imports only src/planner and the webview protocol.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['webview/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'vscode', message: 'The webview runs in a browser: talk to the host through the protocol.' }],
          patterns: [{ group: ourLayers(['planner', 'webview']), message: 'webview imports only planner types and its protocol.' }],
        },
      ],
    },
  },
);
