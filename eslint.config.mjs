// Lint keeps the architecture honest: every arrow of docs/architecture.md is a rule here, and
// test/planner/architecture.test.ts proves that each ban bites.
import tseslint from 'typescript-eslint';

/** The rooms of the pure core, and the rooms each may import (docs/architecture.md, "Arrows"). */
const CORE_ROOMS = {
  scope: [],
  plan: ['scope'],
  dispatch: ['scope', 'plan'],
  enforce: ['scope', 'plan', 'dispatch'],
  backstop: ['scope', 'plan', 'enforce'],
  sync: ['scope', 'plan'],
};

/** Modules that reach the machine. The core takes the file system, git, the clock and the environment as parameters. */
const IO_MODULES = [
  'fs', 'fs/promises', 'child_process', 'net', 'http', 'https', 'http2', 'tls', 'dgram', 'dns', 'os',
  'worker_threads', 'cluster', 'readline', 'inspector', 'process', 'vm',
].flatMap((name) => [name, `node:${name}`]);
const IO_PACKAGES = ['write-file-atomic', 'simple-git', 'proper-lockfile'];

const noVscode = (why) => ({ name: 'vscode', message: why });
const ioBans = (where) => [...IO_MODULES, ...IO_PACKAGES].map((name) => ({ name, message: `${where} does no I/O: take the file system, git or the clock as a parameter (src/node implements them).` }));

/** A relative import whose path names one of `folders` as a directory. */
const relativeInto = (folders) => `^\\.{1,2}/(?:.*/)?(?:${folders.join('|')})(?:/|$)`;

function restrict(files, { paths = [], patterns = [] }) {
  return { files, rules: { 'no-restricted-imports': ['error', { paths, patterns }] } };
}

const coreRules = Object.entries(CORE_ROOMS).map(([room, allowed]) => {
  const forbidden = Object.keys(CORE_ROOMS).filter((other) => other !== room && !allowed.includes(other));
  return restrict([`src/planner/${room}/**/*.ts`], {
    paths: [noVscode('src/planner is pure: it knows nothing of VS Code.'), ...ioBans('src/planner')],
    patterns: [
      { regex: relativeInto(['cli', 'extension', 'node', 'protocol', 'webview']), message: 'src/planner imports nothing of ours outside src/planner.' },
      ...(forbidden.length === 0
        ? []
        : [{ regex: relativeInto(forbidden), message: `src/planner/${room} may import only ${allowed.length === 0 ? 'itself' : allowed.map((name) => `src/planner/${name}`).join(', ')}.` }]),
    ],
  });
});

// A file directly in src/planner belongs to no room (test/planner/architecture.test.ts refuses one); the
// planner-wide bans still hold for it.
const plannerWide = restrict(['src/planner/*.ts'], {
  paths: [noVscode('src/planner is pure: it knows nothing of VS Code.'), ...ioBans('src/planner')],
  patterns: [{ regex: relativeInto(['cli', 'extension', 'node', 'protocol', 'webview']), message: 'src/planner imports nothing of ours outside src/planner.' }],
});

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
  plannerWide,
  ...coreRules,
  restrict(['src/node/**/*.ts'], {
    paths: [noVscode('src/node is the Node side of the core: it runs in the CLI too.')],
    patterns: [{ regex: relativeInto(['cli', 'extension', 'protocol', 'webview']), message: 'src/node imports only src/planner.' }],
  }),
  restrict(['src/protocol/**/*.ts'], {
    paths: [noVscode('src/protocol is shared with the webview, which runs in a browser.'), ...ioBans('src/protocol')],
    patterns: [{ regex: relativeInto(['cli', 'extension', 'node', 'webview']), message: 'src/protocol imports only src/planner.' }],
  }),
  restrict(['src/cli/**/*.ts'], {
    paths: [noVscode('The CLI runs without VS Code.')],
    patterns: [{ regex: relativeInto(['extension', 'protocol', 'webview']), message: 'src/cli imports only src/planner and src/node.' }],
  }),
  restrict(['src/extension/**/*.ts'], {
    patterns: [{ regex: relativeInto(['cli', 'webview']), message: 'src/extension imports only src/planner, src/node and src/protocol.' }],
  }),
  restrict(['webview/**/*.ts'], {
    paths: [noVscode('The webview runs in a browser: talk to the host through src/protocol.'), ...ioBans('webview')],
    patterns: [
      { regex: relativeInto(['cli', 'extension', 'node']), message: 'webview imports only src/protocol and the scope engine.' },
      // One exception, by name: plan/agentId.ts, the one rule for agent ids (it imports nothing).
      { regex: '(?:^|/)planner/(?:plan/(?!agentId$)|(?:enforce|dispatch|backstop|sync)(?:/|$))', message: 'webview imports only src/protocol, the scope engine (src/planner/scope) and src/planner/plan/agentId.' },
    ],
  }),
);
