import assert from 'node:assert/strict';
import { FileIndex } from '../../../src/planner/scope/fileIndex';
import { agentScopeProblems, manifestTextProblems, waveSidecarProblems } from '../../../src/planner/plan/declarationProblems';
import type { TextProblem } from '../../../src/planner/plan/declarationProblems';

/** Each problem as [severity, code, the text it covers]. */
function placed(text: string, problems: readonly TextProblem[]): [string, string, string][] {
  return problems.map((problem) => [problem.severity, problem.code, text.slice(problem.start, problem.end)]);
}

const files = new FileIndex(['src/a.ts', 'src/b.ts', 'src/ui/x.tsx', 'package.json', 'README.md']);

describe('agentScopeProblems', () => {
  it('has nothing to say about a good scope file', () => {
    assert.deepEqual(agentScopeProblems('["src/a.ts", "src/ui/"]\n', 'alice', { files }), []);
  });

  it('places each refused entry, typo and coordinator file on its string', () => {
    const text = '[\n  "src/a.ts",\n  "../outside",\n  ".claude/wave-scope.json",\n  "src/{ui,}/x.tsx",\n  "package.json",\n  7\n]\n';
    const problems = agentScopeProblems(text, 'alice', { files, controlDir: '.claude' });
    assert.deepEqual(placed(text, problems), [
      ['error', 'bad-entry', '"../outside"'],
      ['error', 'control-path', '".claude/wave-scope.json"'],
      ['warning', 'empty-alternative', '"src/{ui,}/x.tsx"'],
      ['warning', 'coordinator-file', '"package.json"'],
      ['error', 'bad-entry', '7'],
    ]);
    assert.match(problems[0]?.message ?? '', /record "alice", entry "\.\.\/outside"/);
    assert.match(problems[3]?.message ?? '', /parallel installs and lockfile conflicts/);
    assert.match(problems[4]?.message ?? '', /must be a string, got number/);
  });

  it('says where a file is not JSON, and when it is not an array', () => {
    const broken = '["src/a.ts",, ]';
    const [syntax] = agentScopeProblems(broken, 'alice');
    assert.equal(syntax?.code, 'not-json');
    assert.equal(syntax?.start, broken.indexOf(',,') + 1);
    assert.deepEqual(placed('{"a": 1}', agentScopeProblems('{"a": 1}', 'alice')), [['error', 'not-array', '{"a": 1}']]);
    assert.equal(agentScopeProblems('', 'alice')[0]?.code, 'not-json');
  });
});

describe('waveSidecarProblems', () => {
  it('places collisions on both entries, and record problems on their id', () => {
    const text = JSON.stringify(
      [
        { id: 'api', files: ['src/'] },
        { id: 'ui', files: ['src/ui/x.tsx', 'README.md'] },
        { id: 'bad id', files: ['README.md'] },
        { id: 'API', files: [] },
      ],
      null,
      2,
    );
    const problems = waveSidecarProblems(text, { files });
    const summary = placed(text, problems);
    assert.ok(summary.some(([severity, code, covered]) => severity === 'error' && code === 'bad-id' && covered === '"bad id"'), JSON.stringify(summary));
    assert.ok(summary.some(([, code, covered]) => code === 'duplicate-id' && covered === '"API"'), JSON.stringify(summary));
    const collisions = problems.filter((problem) => problem.code === 'collision');
    assert.deepEqual(
      collisions.slice(0, 2).map((problem) => text.slice(problem.start, problem.end)),
      ['"src/"', '"src/ui/x.tsx"'],
    );
    assert.match(collisions[0]?.message ?? '', /agents "api" and "ui" both claim src\/ and src\/ui\/x\.tsx \(for example src\/ui\/x\.tsx\)/);
  });

  it('refuses a record that is not one, and an empty wave', () => {
    assert.deepEqual(placed('[1]', waveSidecarProblems('[1]')).map(([, code]) => code), ['not-record']);
    assert.deepEqual(placed('[]', waveSidecarProblems('[]')), [['error', 'empty', '[]']]);
    assert.deepEqual(placed('[{"id":"a","files":"x"}]', waveSidecarProblems('[{"id":"a","files":"x"}]')), [['error', 'bad-files', '"files":"x"']]);
  });
});

describe('manifestTextProblems', () => {
  it('has nothing but the session warning for a written manifest', () => {
    const text = JSON.stringify({ version: 1, wave: 1, role: 'implementation', enforcement: 'strict', allowedPaths: ['src/'], blockedCommands: [] }, null, 2);
    assert.deepEqual(manifestTextProblems(text).map((problem) => [problem.severity, problem.message.slice(0, 30)]), [['warning', 'the manifest names no session ']]);
  });

  it('places what validate rejects on the key or element it is about', () => {
    const text = '{\n  "version": 2,\n  "wave": 1,\n  "role": "implementation",\n  "allowedPaths": ["src/", ".git/hooks/x"],\n  "blockedCommands": [],\n  "session": "s",\n  "extra": true\n}\n';
    const problems = manifestTextProblems(text);
    const summary = placed(text, problems);
    assert.deepEqual(summary, [
      ['error', 'manifest', '2'],
      ['error', 'manifest', '".git/hooks/x"'],
      // "session" is the legacy key, so the manifest names no session_id: a warning about the whole object.
      ['warning', 'manifest', '{'],
      ['warning', 'manifest', '"session"'],
      ['warning', 'manifest', '"extra"'],
    ]);
    assert.match(problems[0]?.message ?? '', /"version" must be 1/);
  });

  it('puts a missing key on the opening brace, and a syntax error where it is', () => {
    const text = '{"version": 1, "wave": 1, "role": "r", "blockedCommands": []}';
    const missing = manifestTextProblems(text).find((problem) => /allowedPaths/.test(problem.message));
    assert.deepEqual([missing?.start, missing?.end], [0, 1]);
    assert.equal(manifestTextProblems('{"version": 1,').at(0)?.code, 'not-json');
  });
});
