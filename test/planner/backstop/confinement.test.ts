import assert from 'node:assert/strict';
import { bubblewrapArguments, planConfinement } from '../../../src/planner/backstop/confinement';
import type { ConfinementRequest } from '../../../src/planner/backstop/confinement';

/** A file system of absolute paths: directories end in `/`; `links` map a path to its canonical target. */
function fakeFs(entries: string[], links: Record<string, string> = {}): ConfinementRequest['fs'] {
  const dirs = new Set(entries.filter((entry) => entry.endsWith('/')).map((entry) => entry.slice(0, -1)));
  const files = new Set(entries.filter((entry) => !entry.endsWith('/')));
  const resolve = (path: string) => links[path] ?? path;
  return {
    kind: (path) => (dirs.has(resolve(path)) ? 'dir' : files.has(resolve(path)) ? 'file' : undefined),
    realpath: (path) => (dirs.has(resolve(path)) || files.has(resolve(path)) ? resolve(path) : undefined),
  };
}

const FS = fakeFs(
  ['/repo/', '/repo/src/', '/repo/src/a.ts', '/repo/src/lib/', '/repo/README.md', '/repo/CHANGES.md', '/repo/.codex/', '/repo/.codex/hooks.json', '/repo/.git/', '/tmp/', '/home/u/.cache/', '/etc/', '/repo/.orchestrator/metrics/'],
  { '/repo/src/out': '/etc' },
);

function plan(entries: string[], extra: Partial<ConfinementRequest> = {}) {
  return planConfinement({
    writeRoot: '/repo',
    manifestRoot: '/repo',
    entries,
    filesMatching: (entry) => (entry === '*.md' ? ['README.md', 'CHANGES.md'] : []),
    tempDirs: ['/tmp'],
    cacheDirs: ['/home/u/.cache'],
    requested: [],
    controlPaths: ['/repo/.codex/hooks.json', '/repo/.git', '/repo/.claude/wave-scope.json'],
    fs: FS,
    ...extra,
  });
}

const scopeGrants = (result: ReturnType<typeof plan>) => result.writable.filter((grant) => grant.reason === 'scope').map((grant) => grant.path);

describe('backstop: planning the sandbox of a turn', () => {
  const cases: Array<{ entries: string[]; writable: string[]; notes?: string[] }> = [
    { entries: ['src/a.ts'], writable: ['/repo/src/a.ts'] },
    { entries: ['src/'], writable: ['/repo/src'] },
    { entries: ['src/**/*.ts'], writable: ['/repo/src'] },
    { entries: ['src/lib/*.ts', 'src/lib/x.ts'], writable: ['/repo/src/lib'], notes: ['parent-granted'] },
    { entries: ['{src/lib,docs}/*.ts'], writable: ['/repo/src/lib'], notes: ['cannot-create'] },
    { entries: ['src/new/deep/file.ts'], writable: ['/repo/src'], notes: ['parent-granted'] },
    { entries: ['NEWS.md'], writable: [], notes: ['cannot-create'] },
    { entries: ['*.md'], writable: ['/repo/README.md', '/repo/CHANGES.md'], notes: ['root-glob'] },
    { entries: ['src/out/'], writable: [], notes: ['outside-repository'] },
  ];
  for (const { entries, writable, notes } of cases) {
    it(`${entries.join(', ')} → ${writable.join(', ') || 'nothing writable'}`, () => {
      const result = plan(entries);
      assert.deepEqual(scopeGrants(result), writable);
      assert.deepEqual(result.notes.map((note) => note.kind), notes ?? []);
    });
  }

  // A link a turn left must not widen the next: `src/gen -> ../.git/refs/heads` let a confined turn move a
  // branch, `.orchestrator/backstop/hooks -> /` made the whole file system writable (red-team review, 2026-12-06).
  it('grants nothing reached through a link, nor anything inside control state', () => {
    const linked = fakeFs(
      ['/repo/', '/repo/src/', '/repo/src/a.ts', '/repo/lib/', '/repo/lib/b.ts', '/repo/.git/', '/repo/.git/refs/', '/tmp/', '/home/u/.cache/'],
      { '/repo/src/gen': '/repo/.git/refs', '/repo/src/alias': '/repo/lib', '/repo/src/b.ts': '/repo/lib/b.ts', '/repo/src/up': '/repo/lib' },
    );
    const cases: Array<[string, string]> = [
      ['src/gen/', '/repo/.git/refs'],
      ['src/alias/', '/repo/lib'],
      ['src/b.ts', '/repo/lib/b.ts'],
      ['src/up/new/file.ts', '/repo/lib'],
    ];
    for (const [entry, target] of cases) {
      const result = plan([entry], { fs: linked });
      assert.deepEqual(scopeGrants(result), [], entry);
      assert.deepEqual(result.notes, [{ kind: 'linked', entry, path: `/repo/${entry.split('/').slice(0, 2).join('/')}`, target }], entry);
    }
    assert.deepEqual(scopeGrants(plan(['.git/refs/'], { fs: linked })), [], 'control state itself is never granted');
  });

  it('will not bind a linked .orchestrator directory: the plan says the sandbox cannot be built', () => {
    const linked = fakeFs(['/repo/', '/repo/src/', '/etc/', '/repo/.orchestrator/metrics/', '/tmp/'], { '/repo/.orchestrator/backstop/hooks': '/etc' });
    const result = plan(['src/'], { fs: linked });
    assert.ok(!result.writable.some((grant) => grant.path === '/etc'));
    assert.deepEqual(result.notes, [{ kind: 'linked-orchestrator', path: '/repo/.orchestrator/backstop/hooks', target: '/etc' }]);
  });

  it('never makes the repository root writable, nor a temp directory inside the repository', () => {
    const result = plan(['**', '*'], { tempDirs: ['/tmp', '/repo/src/lib'] });
    assert.ok(!result.writable.some((grant) => grant.path === '/repo'));
    assert.deepEqual(result.notes.filter((note) => note.kind === 'inside-repository'), [{ kind: 'inside-repository', path: '/repo/src/lib' }]);
  });

  it('keeps control state read-only inside a writable directory, and binds in an order where the repository wins over /tmp', () => {
    const result = plan(['.codex/']);
    assert.deepEqual(result.protected, ['/repo/.codex/hooks.json']);
    const args = bubblewrapArguments(result, { cwd: '/repo', infoFd: 3 });
    const position = (...needle: string[]) => args.findIndex((_, index) => needle.every((part, offset) => args[index + offset] === part));
    assert.equal(args.slice(0, 7).join(' '), '--ro-bind / / --dev /dev --proc /proc');
    assert.ok(position('--bind', '/tmp', '/tmp') < position('--ro-bind', '/repo', '/repo'), 'temp first, then the repository read-only');
    assert.ok(position('--ro-bind', '/repo', '/repo') < position('--bind', '/repo/.codex', '/repo/.codex'), 'then the grants');
    assert.ok(position('--bind', '/repo/.codex', '/repo/.codex') < position('--ro-bind', '/repo/.codex/hooks.json', '/repo/.codex/hooks.json'), 'then control state read-only again');
    assert.ok(position('--bind', '/repo/.orchestrator/metrics', '/repo/.orchestrator/metrics') > 0, 'the hooks\' telemetry stays writable');
    for (const flag of ['--cap-drop', '--unshare-pid', '--die-with-parent']) assert.ok(args.includes(flag), flag);
    assert.deepEqual(args.slice(-4), ['--chdir', '/repo', '--info-fd', '3']);
  });
});
