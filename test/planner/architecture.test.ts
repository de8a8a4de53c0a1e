import assert from 'node:assert/strict';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ESLint } from 'eslint';

const root = join(__dirname, '..', '..');

// The import direction of docs/architecture.md is enforced by the lint configuration; these cases prove each ban bites.
describe('architecture: import direction (eslint.config.mjs)', () => {
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
    // The rooms of the core and their arrows.
    ['src/planner/scope/example.ts', "import { union } from './scopeUnion';\nexport const x = union;\n", true],
    ['src/planner/scope/example.ts', "import { readPlan } from '../plan/planReader';\nexport const x = readPlan;\n", false],
    ['src/planner/scope/example.ts', "import { decideWrite } from '../enforce/writeDecision';\nexport const x = decideWrite;\n", false],
    ['src/planner/plan/example.ts', "import { union } from '../scope/scopeUnion';\nexport const x = union;\n", true],
    ['src/planner/plan/example.ts', "import { decideWrite } from '../enforce/writeDecision';\nexport const x = decideWrite;\n", false],
    ['src/planner/plan/example.ts', "import { x } from '../dispatch/ledger';\nexport const y = x;\n", false],
    ['src/planner/enforce/example.ts', "import { readPlan } from '../plan/planReader';\nexport const x = readPlan;\n", true],
    ['src/planner/enforce/example.ts', "import { x } from '../dispatch/ledger';\nexport const y = x;\n", true],
    ['src/planner/enforce/example.ts', "import { x } from '../backstop/snapshot';\nexport const y = x;\n", false],
    ['src/planner/dispatch/example.ts', "import { x } from '../enforce/writeGate';\nexport const y = x;\n", false],
    ['src/planner/backstop/example.ts', "import { x } from '../enforce/writeGate';\nexport const y = x;\n", true],
    ['src/planner/backstop/example.ts', "import { x } from '../sync/planRef';\nexport const y = x;\n", false],
    ['src/planner/sync/example.ts', "import { x } from '../plan/planWriter';\nexport const y = x;\n", true],
    ['src/planner/sync/example.ts', "import { x } from '../dispatch/ledger';\nexport const y = x;\n", false],
    // The core does no I/O: the file system, git and processes reach it as parameters.
    ['src/planner/plan/example.ts', "import { readFileSync } from 'node:fs';\nexport const x = readFileSync;\n", false],
    ['src/planner/plan/example.ts', "import { readFileSync } from 'fs';\nexport const x = readFileSync;\n", false],
    ['src/planner/enforce/example.ts', "import { spawnSync } from 'node:child_process';\nexport const x = spawnSync;\n", false],
    ['src/planner/scope/example.ts', "import { homedir } from 'node:os';\nexport const x = homedir;\n", false],
    ['src/planner/plan/example.ts', "import writeFileAtomic from 'write-file-atomic';\nexport const x = writeFileAtomic;\n", false],
    ['src/planner/plan/example.ts', "import { join } from 'node:path';\nexport const x = join;\n", true],
    ['src/planner/plan/example.ts', "import { runGit } from '../../node/git';\nexport const x = runGit;\n", false],
    ['src/planner/plan/example.ts', "import type { PlanDraft } from '../../protocol/plannerProtocol';\nexport type X = PlanDraft;\n", false],
    // The Node adapters implement the core's interfaces and nothing above them.
    ['src/node/example.ts', "import { readFileSync } from 'node:fs';\nexport const x = readFileSync;\n", true],
    ['src/node/example.ts', "import type { DeclarationFs } from '../planner/plan/declarationStore';\nexport type X = DeclarationFs;\n", true],
    ['src/node/example.ts', "import { messages } from '../cli/messages';\nexport const x = messages;\n", false],
    ['src/node/example.ts', "import type * as vscode from 'vscode';\nexport type X = vscode.Uri;\n", false],
    // The protocol is shared with the browser.
    ['src/protocol/example.ts', "import type { Collision } from '../planner/scope/collisions';\nexport type X = Collision;\n", true],
    ['src/protocol/example.ts', "import type * as vscode from 'vscode';\nexport type X = vscode.Uri;\n", false],
    ['src/protocol/example.ts', "import { runGit } from '../node/git';\nexport const x = runGit;\n", false],
    ['src/protocol/example.ts', "import { readFileSync } from 'node:fs';\nexport const x = readFileSync;\n", false],
    // The two shells.
    ['src/cli/example.ts', "import { runGit } from '../node/git';\nexport const x = runGit;\n", true],
    ['src/cli/example.ts', "import type { PlanDraft } from '../protocol/plannerProtocol';\nexport type X = PlanDraft;\n", false],
    ['src/cli/example.ts', "import type * as vscode from 'vscode';\nexport type X = vscode.Uri;\n", false],
    ['src/extension/example.ts', "import type { PlanDraft } from '../protocol/plannerProtocol';\nexport type X = PlanDraft;\n", true],
    ['src/extension/example.ts', "import { runGit } from '../node/git';\nexport const x = runGit;\n", true],
    ['src/extension/example.ts', "import { x } from '../../webview/plannerView';\nexport const y = x;\n", false],
    // The webview: the protocol and the pure scope engine, nothing else of ours.
    ['webview/example.ts', "import type { PlanDraft } from '../src/protocol/plannerProtocol';\nexport type X = PlanDraft;\n", true],
    ['webview/example.ts', "import { findCollisions } from '../src/planner/scope/collisions';\nexport const x = findCollisions;\n", true],
    ['webview/example.ts', "import { readPlan } from '../src/planner/plan/planReader';\nexport const x = readPlan;\n", false],
    ['webview/example.ts', "import { isAgentId } from '../src/planner/plan/agentId';\nexport const x = isAgentId;\n", true],
    ['webview/example.ts', "import { x } from '../src/planner/enforce/writeGate';\nexport const y = x;\n", false],
    ['webview/example.ts', "import { runGit } from '../src/node/git';\nexport const x = runGit;\n", false],
    ['webview/example.ts', "import { activate } from '../src/extension/extension';\nexport const x = activate;\n", false],
    ['webview/example.ts', "import type * as vscode from 'vscode';\nexport type X = vscode.Uri;\n", false],
    ['webview/example.ts', "import { readFileSync } from 'node:fs';\nexport const x = readFileSync;\n", false],
  ];
  for (const [file, source, allowed] of cases) {
    const imported = /from '([^']+)'/.exec(source)?.[1];
    it(`${file} ${allowed ? 'may' : 'may not'} import ${imported}`, async () => {
      const problems = await restricted(file, source);
      assert.equal(problems.length === 0, allowed, problems.join('; '));
    });
  }
});

describe('architecture: the rooms of src/planner', () => {
  const planner = join(root, 'src', 'planner');
  const rooms = ['backstop', 'dispatch', 'enforce', 'plan', 'scope', 'sync'];

  it('every file of src/planner lies in exactly one room, and there is no other room', () => {
    const entries = readdirSync(planner);
    const strays = entries.filter((name) => !statSync(join(planner, name)).isDirectory());
    assert.deepEqual(strays, [], `files directly in src/planner belong to no room: ${strays.join(', ')}`);
    const unknown = entries.filter((name) => !rooms.includes(name));
    assert.deepEqual(unknown, [], `rooms not named in docs/architecture.md: ${unknown.join(', ')}`);
  });
});
