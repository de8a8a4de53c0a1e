import assert from 'node:assert/strict';
import { COORDINATOR_FILES, coordinatorFileOf, coordinatorFileReason, findCoordinatorAssignments } from '../../../src/planner/plan/coordinatorFiles';

describe('coordinator files', () => {
  const cases: Array<[string, boolean, string | undefined]> = [
    ['package.json', false, 'package.json'],
    ['packages/web/package.json', false, 'package.json'],
    ['package-lock.json', false, 'package-lock.json'],
    ['pnpm-lock.yaml', false, 'pnpm-lock.yaml'],
    ['yarn.lock', false, 'yarn.lock'],
    ['crates/core/Cargo.lock', false, 'Cargo.lock'],
    ['go.sum', false, 'go.sum'],
    ['src/package.json.bak', false, undefined],
    ['src/mypackage.json', false, undefined],
    ['docs/yarn.lock/readme.md', false, undefined],
    ['cargo.lock', false, undefined],
    ['cargo.lock', true, 'Cargo.lock'],
    ['PACKAGE.JSON', true, 'package.json'],
    ['src/index.ts', true, undefined],
  ];
  for (const [path, ignoreCase, expected] of cases) {
    it(`${path}${ignoreCase ? ' (ignoring case)' : ''} is ${expected ?? 'an ordinary file'}`, () => {
      assert.equal(coordinatorFileOf(path, { ignoreCase })?.name, expected);
    });
  }

  it('gives each kind a reason that names the file and the conflict', () => {
    for (const file of COORDINATOR_FILES) {
      const reason = coordinatorFileReason(file);
      assert.ok(reason.startsWith(`${file.name} `), reason);
      assert.match(reason, /parallel|every agent/);
    }
    assert.match(coordinatorFileReason(coordinatorFileOf('package-lock.json') as never), /lockfile.*in parallel.*conflict/);
    assert.match(coordinatorFileReason(coordinatorFileOf('package.json') as never), /parallel installs and lockfile conflicts/);
  });

  it('names no file twice', () => {
    assert.equal(new Set(COORDINATOR_FILES.map((file) => file.name)).size, COORDINATOR_FILES.length);
  });
});

describe('findCoordinatorAssignments', () => {
  const files = ['package.json', 'package-lock.json', 'src/a.ts', 'packages/web/package.json', 'packages/web/src/x.ts', 'README.md'];

  it('finds a plain entry, a folder and a glob that name coordinator files, each once per agent', () => {
    const found = findCoordinatorAssignments(
      [
        { id: 'alice', files: ['package.json', 'src/'] },
        { id: 'bob', files: ['packages/web/', 'packages/**/package.json'] },
        { id: 'carol', files: ['src/a.ts', 'README.md'] },
      ],
      { files },
    );
    assert.deepEqual(
      found.map(({ agent, entry, file }) => [agent, entry, file]),
      [
        ['alice', 'package.json', 'package.json'],
        ['bob', 'packages/web/', 'packages/web/package.json'],
      ],
    );
    assert.match(found[0]?.message ?? '', /^agent "alice" owns package\.json, a file the coordinator keeps: package\.json is npm's dependency manifest/);
    assert.match(found[1]?.message ?? '', /owns packages\/web\/package\.json \(through "packages\/web\/"\)/);
  });

  it('warns about a lockfile the wave would create (a plain entry that does not exist yet)', () => {
    const found = findCoordinatorAssignments([{ id: 'alice', files: ['yarn.lock'] }], { files });
    assert.deepEqual(found.map((item) => item.file), ['yarn.lock']);
    assert.equal(found[0]?.coordinatorFile.kind, 'lockfile');
  });

  it("leaves the coordinator's own record alone", () => {
    assert.deepEqual(findCoordinatorAssignments([{ id: 'coordinator', files: ['package.json', 'package-lock.json'] }], { files }), []);
  });

  it('matches case-insensitively when the repository does', () => {
    const found = findCoordinatorAssignments([{ id: 'alice', files: ['Package.JSON'] }], { files, ignoreCase: true });
    assert.deepEqual(found.map((item) => item.coordinatorFile.name), ['package.json']);
    assert.deepEqual(findCoordinatorAssignments([{ id: 'alice', files: ['Package.JSON'] }], { files }), []);
  });

  it('skips entries the grammar refuses instead of throwing', () => {
    assert.deepEqual(findCoordinatorAssignments([{ id: 'alice', files: ['../outside', 'package.json'] }], { files }).map((item) => item.file), ['package.json']);
  });
});
