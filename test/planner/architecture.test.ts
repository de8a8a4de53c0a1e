import assert from 'node:assert/strict';
import { join } from 'node:path';
import { ESLint } from 'eslint';

// The import direction of STYLE.md is enforced by the lint configuration; these cases prove the rule bites.
describe('architecture: import direction (eslint.config.mjs)', () => {
  const root = join(__dirname, '..', '..');
  const eslint = new ESLint({ cwd: root });
  const restricted = async (file: string, source: string) => {
    const [result] = await eslint.lintText(source, { filePath: join(root, file) });
    return (result?.messages ?? []).filter((message) => message.ruleId === 'no-restricted-imports').map((message) => message.message);
  };

  const cases: Array<[file: string, source: string, allowed: boolean]> = [
    ['src/planner/example.ts', "import type * as vscode from 'vscode';\nexport type X = vscode.Uri;\n", false],
    ['src/planner/example.ts', "import { messages } from '../cli/messages';\nexport const x = messages;\n", false],
    ['src/planner/example.ts', "import { activate } from '../extension/extension';\nexport const x = activate;\n", false],
    ['src/planner/example.ts', "import { union } from './scopeUnion';\nexport const x = union;\n", true],
    ['src/cli/example.ts', "import { activate } from '../extension/extension';\nexport const x = activate;\n", false],
    ['src/cli/example.ts', "import { union } from '../planner/scopeUnion';\nexport const x = union;\n", true],
    ['src/extension/example.ts', "import { runCli } from '../cli/main';\nexport const x = runCli;\n", false],
    ['src/extension/example.ts', "import { union } from '../planner/scopeUnion';\nexport const x = union;\n", true],
    ['webview/example.ts', "import { runCli } from '../src/cli/main';\nexport const x = runCli;\n", false],
  ];
  for (const [file, source, allowed] of cases) {
    const imported = /from '([^']+)'/.exec(source)?.[1];
    it(`${file} ${allowed ? 'may' : 'may not'} import ${imported}`, async () => {
      const problems = await restricted(file, source);
      assert.equal(problems.length === 0, allowed, problems.join('; '));
    });
  }
});
