import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { builtCliPath, cleanEnv, runBuiltCli } from '../support/builtCli';
import type { CliRun } from '../support/builtCli';
import { createSharedRemote } from '../node/gitRemotes';
import type { Clone, SharedRemote } from '../node/gitRemotes';

const run = (clone: Clone, args: string[], input = ''): CliRun => runBuiltCli(args, { cwd: clone.root, input, env: cleanEnv() });
const SUB_V1 = '1'.repeat(40);
const SUB_V2 = '2'.repeat(40);

describe('wave-scope verify (built CLI, a published plan, real branches)', function () {
  this.timeout(120_000);
  let remote: SharedRemote;
  let ci: Clone;
  let coordinatorClone: string;
  before(() => {
    remote = createSharedRemote({ 'src/a/x.ts': 'x\n', 'src/a/y.ts': 'y\n', 'src/b/z.ts': 'z\n', 'docs/readme.md': 'readme\n' });
    const coordinator = remote.clone('coordinator');
    // A submodule at libs/sub (a gitlink; git never needs the submodule's repository for a diff).
    coordinator.git('update-index', '--add', '--cacheinfo', `160000,${SUB_V1},libs/sub`);
    coordinator.git('commit', '--quiet', '-m', 'add the submodule');
    coordinator.git('push', '--quiet', 'origin', 'main');
    const plan = run(
      coordinator,
      ['plan', 'write', '--wave', '2', '--role', 'implementation'],
      JSON.stringify([
        { id: 'alice', files: ['src/a/', 'libs/sub'] },
        { id: 'bob', files: ['src/b/'] },
        // Published in NFD (e + combining acute), as a tool on macOS may write it.
        { id: 'dave', files: ['lib/cafe\u0301/'] },
      ]),
    );
    assert.equal(plan.status, 0, plan.stderr);
    const published = run(coordinator, ['publish']);
    assert.equal(published.status, 0, published.stderr);
    coordinatorClone = JSON.parse(readFileSync(join(coordinator.root, '.git/wave-scope/clone.json'), 'utf8')).id;
    ci = remote.clone('ci');
  });
  after(() => remote.remove());

  /** A branch off main with `change` applied in one commit (a change that edits the index itself is committed as staged). */
  function branch(name: string, change: (clone: Clone) => void, stageWorkTree = true): string {
    ci.git('checkout', '--quiet', '-B', name, 'origin/main');
    change(ci);
    if (stageWorkTree) ci.git('add', '--all');
    ci.git('commit', '--quiet', '--allow-empty', '-m', name);
    ci.git('checkout', '--quiet', '--detach', 'origin/main');
    return name;
  }
  const verify = (head: string, agent = 'alice', extra: string[] = []) => run(ci, ['verify', '--base', 'origin/main', '--head', head, '--wave', '2', '--agent', agent, ...extra]);
  const moveFile = (from: string, to: string) => (clone: Clone) => clone.git('mv', from, to);

  const cases: Array<{ title: string; agent?: string; change: (clone: Clone) => void; outside: string[]; indexOnly?: boolean }> = [
    {
      title: 'in scope: an added, a modified and a deleted file, and a test sibling the role grants',
      change: (c) => {
        c.write({ 'src/a/new.ts': 'n\n', 'src/a/x.ts': 'changed\n', 'src/a/y.test.ts': 't\n' });
        c.git('rm', '--quiet', 'src/a/y.ts');
      },
      outside: [],
    },
    { title: 'an added file outside the scope', change: (c) => c.write({ 'src/b/new.ts': 'n\n' }), outside: ['added: src/b/new.ts'] },
    { title: 'a modified file outside the scope', change: (c) => c.write({ 'docs/readme.md': 'changed\n' }), outside: ['modified: docs/readme.md'] },
    { title: 'a deleted file outside the scope', change: (c) => c.git('rm', '--quiet', 'src/b/z.ts'), outside: ['deleted: src/b/z.ts'] },
    { title: 'a rename from inside the scope to outside it', change: moveFile('src/a/x.ts', 'src/b/x.ts'), outside: ['renamed to: src/b/x.ts (from src/a/x.ts)'] },
    { title: 'a rename from outside the scope into it', change: moveFile('src/b/z.ts', 'src/a/z.ts'), outside: ['renamed from: src/b/z.ts (to src/a/z.ts)'] },
    { title: 'a rename inside the scope', change: moveFile('src/a/x.ts', 'src/a/moved.ts'), outside: [] },
    {
      title: 'a file turned into a symbolic link outside the scope',
      change: (c) => {
        rmSync(join(c.root, 'docs/readme.md'));
        symlinkSync('../src/a/x.ts', join(c.root, 'docs/readme.md'));
      },
      outside: ['type changed: docs/readme.md'],
    },
    { title: 'a submodule bump the scope names', change: (c) => c.git('update-index', '--cacheinfo', `160000,${SUB_V2},libs/sub`), outside: [], indexOnly: true },
    {
      title: 'a submodule bump outside the scope',
      agent: 'bob',
      change: (c) => c.git('update-index', '--cacheinfo', `160000,${SUB_V2},libs/sub`),
      outside: ['submodule bumped: libs/sub'],
      indexOnly: true,
    },
    {
      title: 'a submodule added outside the scope',
      change: (c) => c.git('update-index', '--add', '--cacheinfo', `160000,${SUB_V2},vendor/other`),
      outside: ['submodule added: vendor/other'],
      indexOnly: true,
    },
    {
      title: 'a submodule removed outside the scope',
      agent: 'bob',
      change: (c) => c.git('update-index', '--force-remove', 'libs/sub'),
      outside: ['submodule removed: libs/sub'],
      indexOnly: true,
    },
    { title: 'a mode change outside the scope', agent: 'bob', change: (c) => chmodSync(join(c.root, 'src/a/x.ts'), 0o755), outside: ['modified: src/a/x.ts'] },
  ];
  cases.forEach(({ title, agent = 'alice', change, outside, indexOnly = false }, index) => {
    it(`${title}: exit ${outside.length === 0 ? 0 : 3}`, () => {
      const name = branch(`case-${index}`, change, !indexOnly);
      const result = verify(name, agent);
      // The same range by commit ids, as CI gives it (its diff starts before the checkout is located): the same verdict.
      const ids = [ci.git('rev-parse', 'origin/main').trim(), ci.git('rev-parse', name).trim()] as const;
      const byIds = run(ci, ['verify', '--base', ids[0], '--head', ids[1], '--wave', '2', '--agent', agent]);
      assert.equal(byIds.status, result.status, byIds.stderr);
      assert.deepEqual(byIds.stderr.trimEnd().split('\n').slice(1), result.stderr.trimEnd().split('\n').slice(1));
      if (outside.length === 0) {
        assert.equal(result.status, 0, result.stderr);
        assert.match(result.stdout, new RegExp(`^ok ${name}: \\d+ changes? in [0-9a-f]{12}\\.\\.[0-9a-f]{12}, all in agent "${agent}"'s scope \\(wave 2\\)\\n$`));
        assert.equal(byIds.stdout.replace(ids[1], name), result.stdout);
        return;
      }
      assert.equal(result.status, 3, result.stderr);
      const [header, ...lines] = result.stderr.trimEnd().split('\n');
      assert.match(header ?? '', new RegExp(`^ERROR: ${name}: agent "${agent}" \\(wave 2\\) changed ${outside.length} paths? outside its scope in [0-9a-f]{12}\\.\\.[0-9a-f]{12}:$`));
      assert.deepEqual(lines, outside.map((line) => `  ${line}`));
    });
  });

  it('by commit ids, one diff of base...head is all the range costs; an id git reads otherwise (a tag) is diffed as before', () => {
    const name = branch('by-ids', (c) => c.write({ 'src/a/x.ts': 'ids\n', 'docs/readme.md': 'not alice\n' }));
    const [base, head] = [ci.git('rev-parse', 'origin/main').trim(), ci.git('rev-parse', name).trim()];
    const trace = join(ci.root, '..', `trace-${process.pid}.json`);
    // Every git process the CLI starts, from git's own trace (GIT_TRACE2_EVENT): the argv of each diff.
    const diffsOf = (args: string[]) => {
      rmSync(trace, { force: true });
      const result = runBuiltCli(args, { cwd: ci.root, env: cleanEnv({ GIT_TRACE2_EVENT: trace }) });
      const diffs = readFileSync(trace, 'utf8')
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as { event: string; argv?: string[] })
        .filter((event) => event.event === 'start' && event.argv?.includes('diff') === true)
        .map((event) => (event.argv ?? []).filter((arg) => /^[0-9a-f]{40}/.test(arg)).join(' '));
      return { result, diffs };
    };
    const early = diffsOf(['verify', '--base', base, '--head', head, '--wave', '2', '--agent', 'alice']);
    assert.equal(early.result.status, 3, early.result.stderr);
    assert.match(early.result.stderr, /modified: docs\/readme\.md/);
    assert.deepEqual(early.diffs, [`${base}...${head}`]);
    // A tag object's id names the tag, not the commit the range resolves to: the early diff is stopped, and the
    // range is diffed from its merge base as for any revision.
    ci.git('tag', '--annotate', '-m', 'a tag', 'by-ids-tag', head);
    const tagId = ci.git('rev-parse', 'by-ids-tag').trim();
    assert.notEqual(tagId, head);
    const tagged = diffsOf(['verify', '--base', base, '--head', tagId, '--wave', '2', '--agent', 'alice']);
    assert.equal(tagged.result.status, 3, tagged.result.stderr);
    assert.match(tagged.result.stderr, /modified: docs\/readme\.md/);
    assert.deepEqual(tagged.diffs, [`${base}...${tagId}`, `${base} ${head}`]);
    rmSync(trace, { force: true });
  });

  it('judges the branch from its merge base: a change on the base branch is never blamed on it', () => {
    const name = branch('after-main-moved', (c) => c.write({ 'src/a/x.ts': 'agent\n' }));
    ci.git('checkout', '--quiet', '-B', 'moved-main', 'origin/main');
    ci.commit({ 'docs/readme.md': 'main moved on\n' });
    const result = run(ci, ['verify', '--base', 'moved-main', '--head', name, '--wave', '2', '--agent', 'alice']);
    assert.equal(result.status, 0, result.stderr);
  });

  it('judges where a merge into the base lands the branch\'s change: along a rename the base made since the fork', () => {
    const name = branch('edit-before-move', (c) => c.write({ 'src/a/y.ts': 'y, edited by alice\n' }));
    ci.git('checkout', '--quiet', '-B', 'main-moved-y', 'origin/main');
    ci.git('mv', 'src/a/y.ts', 'docs/y.ts');
    ci.commit({ 'docs/readme.md': 'main renamed y\n' });
    const result = run(ci, ['verify', '--base', 'main-moved-y', '--head', name, '--wave', '2', '--agent', 'alice']);
    assert.equal(result.status, 3, result.stderr);
    assert.match(result.stderr, /\n {2}modified: docs\/y\.ts \(by the merge into the base only: the base renamed files since the branch forked/);
    assert.doesNotMatch(result.stderr, /src\/a\/y\.ts/, 'the branch\'s own change is in its scope');
    // What a plain merge does, the reason for the verdict.
    ci.git('checkout', '--quiet', '--detach', 'main-moved-y');
    ci.git('merge', '--quiet', '--no-edit', name);
    assert.equal(ci.git('diff', '--name-status', 'main-moved-y', 'HEAD').trim(), 'M\tdocs/y.ts');
    ci.git('checkout', '--quiet', '--detach', 'origin/main');

    const json = run(ci, ['verify', '--base', 'main-moved-y', '--head', name, '--wave', '2', '--agent', 'alice', '--json']);
    assert.deepEqual(JSON.parse(json.stdout).branches[0].outside, [{ path: 'docs/y.ts', kind: 'modified', viaMerge: true }]);
    assert.equal(JSON.parse(json.stdout).branches[0].mergeUnjudged, null);
  });

  it('--json reports every branch with its changes outside the scope', () => {
    const name = branch('json-case', (c) => c.write({ 'docs/readme.md': 'x\n', 'src/a/ok.ts': 'ok\n' }));
    const result = verify(name, 'alice', ['--json']);
    assert.equal(result.status, 3);
    const report = JSON.parse(result.stdout);
    assert.equal(report.ok, false);
    assert.equal(report.exitCode, 3);
    assert.match(report.planCommit, /^[0-9a-f]{40}$/);
    assert.deepEqual(report.branches[0].outside, [{ path: 'docs/readme.md', kind: 'modified' }]);
    assert.equal(report.branches[0].checked, 2);
    assert.equal(report.branches[0].status, 'outside');
  });

  it('many branches at once through a branch map; a branch no rule names is not verified', () => {
    branch('wave-2/alice', (c) => c.write({ 'src/a/fine.ts': 'f\n' }));
    branch('wave-2/bob', (c) => c.write({ 'src/b/fine.ts': 'f\n', 'docs/readme.md': 'not bob\'s\n' }));
    branch('feature/unrelated', (c) => c.write({ 'docs/readme.md': 'anything\n' }));
    const map = join(remote.dir, 'branches.json');
    writeFileSync(map, JSON.stringify({ version: 1, branches: [{ branch: 'wave-{wave}/{agent}' }] }));
    const all = run(ci, ['verify', '--base', 'origin/main', '--map', map]);
    assert.equal(all.status, 3, all.stderr);
    assert.match(all.stdout, /^ok wave-2\/alice: 1 change in /m);
    assert.match(all.stderr, /^ERROR: wave-2\/bob: agent "bob" \(wave 2\) changed 1 path outside its scope in .+:\n {2}modified: docs\/readme\.md\n$/);
    assert.doesNotMatch(all.stdout + all.stderr, /unrelated/);

    const named = run(ci, ['verify', '--base', 'origin/main', '--map', map, '--branch', 'wave-2/alice', '--branch', 'feature/unrelated']);
    assert.equal(named.status, 0, named.stderr);
    assert.match(named.stderr, /^skipped feature\/unrelated: no rule of the branch map names its agent$/m);

    // CI: the head commit of a pull request and the name of its branch.
    const head = ci.git('rev-parse', 'wave-2/bob').trim();
    const pr = run(ci, ['verify', '--base', 'origin/main', '--map', map, '--head', head, '--branch', 'wave-2/bob']);
    assert.equal(pr.status, 3);
    assert.match(pr.stderr, /modified: docs\/readme\.md/);
  });

  it('the example GitHub workflow\'s verify step (docs/examples/verify-agent-branches.yml) runs as written', () => {
    const workflow = readFileSync(join(__dirname, '..', '..', 'docs', 'examples', 'verify-agent-branches.yml'), 'utf8');
    const lines = workflow.split('\n');
    const start = lines.findIndex((line) => /^\s+run: >-$/.test(line));
    assert.notEqual(start, -1, 'the verify step is a folded run block');
    const indent = (line: string) => line.length - line.trimStart().length;
    const body: string[] = [];
    for (const line of lines.slice(start + 1)) {
      if (line.trim() === '' || indent(line) <= indent(lines[start] as string)) break;
      body.push(line.trim());
    }
    const script = body.join(' ');
    assert.match(script, /^wave-scope verify /);
    branch('wave-2/alice', (c) => c.write({ 'src/a/ci.ts': 'ci\n' }));
    branch('wave-2/bob', (c) => c.write({ 'src/b/ci.ts': 'ci\n', 'README.md': 'not bob\'s\n' }));
    ci.write({ '.github/wave-scope-branches.json': JSON.stringify({ version: 1, branches: [{ branch: 'wave-{wave}/{agent}' }] }) });
    const shims = join(remote.dir, 'bin');
    mkdirSync(shims, { recursive: true });
    writeFileSync(join(shims, 'wave-scope'), `#!/bin/sh\nexec "${process.execPath}" "${builtCliPath}" "$@"\n`);
    chmodSync(join(shims, 'wave-scope'), 0o755);
    const step = (ref: string, clone = coordinatorClone) =>
      spawnSync('sh', ['-c', script], {
        cwd: ci.root,
        encoding: 'utf8',
        env: {
          ...cleanEnv(),
          PATH: `${shims}:${process.env.PATH ?? ''}`,
          BASE_SHA: ci.git('rev-parse', 'origin/main').trim(),
          HEAD_SHA: ci.git('rev-parse', ref).trim(),
          HEAD_REF: ref,
          COORDINATOR_CLONE: clone,
        },
      });
    const clean = step('wave-2/alice');
    assert.equal(clean.status, 0, clean.stderr);
    const dirty = step('wave-2/bob');
    assert.equal(dirty.status, 3, dirty.stderr);
    assert.match(dirty.stderr, /^ {2}added: README\.md$/m);
    // Only the coordinator's plan is trusted; the variable unset is a refusal, not a pass.
    const otherClone = step('wave-2/alice', 'c-000000000000');
    assert.equal(otherClone.status, 1, otherClone.stderr);
    assert.match(otherClone.stderr, /no published scope for agent "alice" in wave 2/);
    const unset = step('wave-2/alice', '');
    assert.equal(unset.status, 1, unset.stderr);
    assert.match(unset.stderr, /--clone must be a clone id/);
    rmSync(join(ci.root, '.github'), { recursive: true });
  });

  it('a criss-cross merge cannot hide a change: head is diffed against every merge base', () => {
    // bob's change (m2) is merged into main after main moved on (m1); alice merges m1 and m2 herself, takes
    // bob's file back to what it was, and works in her own scope. Merging her branch would undo bob's work.
    const dated = <T>(seconds: number, action: () => T): T => {
      const date = `${1_700_000_000 + seconds} +0000`;
      const saved = [process.env.GIT_AUTHOR_DATE, process.env.GIT_COMMITTER_DATE];
      process.env.GIT_AUTHOR_DATE = date;
      process.env.GIT_COMMITTER_DATE = date;
      try {
        return action();
      } finally {
        [process.env.GIT_AUTHOR_DATE, process.env.GIT_COMMITTER_DATE] = saved;
        if (saved[0] === undefined) delete process.env.GIT_AUTHOR_DATE;
        if (saved[1] === undefined) delete process.env.GIT_COMMITTER_DATE;
      }
    };
    const tip = () => ci.git('rev-parse', 'HEAD').trim();
    ci.git('checkout', '--quiet', '-B', 'cross-bob', 'origin/main');
    const m2 = dated(10, () => ci.commit({ 'src/b/z.ts': "bob's fix\n" }, 'bob'));
    ci.git('checkout', '--quiet', '-B', 'cross-main', 'origin/main');
    const m1 = dated(20, () => ci.commit({ 'docs/readme.md': 'main moved on\n' }, 'main'));
    dated(30, () => ci.git('merge', '--quiet', '--no-edit', m2));
    const base = tip();
    ci.git('checkout', '--quiet', '-B', 'cross-alice', m1);
    dated(40, () => {
      ci.git('merge', '--quiet', '--no-commit', m2);
      ci.git('checkout', 'origin/main', '--', 'src/b/z.ts');
      ci.commit({ 'src/a/x.ts': 'alice\n' }, 'alice: merge and work');
    });
    const head = tip();
    ci.git('checkout', '--quiet', '--detach', 'origin/main');
    const mergeBases = ci.git('merge-base', '--all', base, head).trim().split('\n');
    assert.deepEqual([...mergeBases].sort(), [m1, m2].sort(), 'two merge bases');
    const result = run(ci, ['verify', '--base', base, '--head', head, '--wave', '2', '--agent', 'alice']);
    assert.equal(result.status, 3, result.stdout + result.stderr);
    // bob's file only: main's own change (m1's readme), which alice merged too, is in base already.
    const [header, ...lines] = result.stderr.trimEnd().split('\n');
    assert.match(header ?? '', /changed 1 path outside its scope in [0-9a-f]{12}\.\.[0-9a-f]{12} and [0-9a-f]{12}\.\.[0-9a-f]{12}:$/);
    assert.deepEqual(lines, ['  modified: src/b/z.ts']);
    const json = JSON.parse(run(ci, ['verify', '--base', base, '--head', head, '--wave', '2', '--agent', 'alice', '--json']).stdout);
    assert.deepEqual([...json.branches[0].mergeBases].sort(), [m1, m2].sort());
  });

  it('a name refused from the one ref git takes for it, and from the refs listed when git follows a symbolic ref', () => {
    const inside = branch('named-inside', (c) => c.write({ 'src/a/named.ts': 'n\n' }));
    // Judged from the ref the locating rev-parse took: a branch named like an abbreviated object id.
    ci.git('branch', 'cafe', inside);
    // git follows a symbolic ref to the branch it names, so which ref it found is listed: a tag of the full
    // ref's name, leading to main, stands in for a branch that does not exist.
    ci.git('symbolic-ref', 'refs/tags/refs/heads/wave-2/ghost', 'refs/remotes/origin/main');
    try {
      const short = verify('cafe');
      assert.equal(short.status, 2, short.stdout + short.stderr);
      assert.match(short.stderr, /^ERROR: "cafe" may be an abbreviated object id and also names refs\/heads\/cafe: give the full ref/);
      const full = verify('refs/heads/cafe');
      assert.equal(full.status, 0, full.stdout + full.stderr);
      const ghost = verify('refs/heads/wave-2/ghost');
      assert.equal(ghost.status, 2, ghost.stdout + ghost.stderr);
      assert.match(ghost.stderr, /^ERROR: "refs\/heads\/wave-2\/ghost" is not a ref here; git would take refs\/tags\/refs\/heads\/wave-2\/ghost for it/);
      // A branch map's base is judged the same way.
      const map = join(remote.dir, 'named-branches.json');
      writeFileSync(map, JSON.stringify({ version: 1, branches: [{ branch: 'named-inside', wave: 2, agent: 'alice' }] }));
      const mapped = run(ci, ['verify', '--base', 'cafe', '--map', map, '--branch', 'named-inside']);
      assert.equal(mapped.status, 2, mapped.stdout + mapped.stderr);
      assert.match(mapped.stderr, /^ERROR: "cafe" may be an abbreviated object id/);
      const plain = run(ci, ['verify', '--base', 'origin/main', '--map', map, '--branch', 'named-inside']);
      assert.equal(plain.status, 0, plain.stdout + plain.stderr);
    } finally {
      ci.git('branch', '-D', 'cafe');
      ci.git('update-ref', '--no-deref', '-d', 'refs/tags/refs/heads/wave-2/ghost');
    }
  });

  it('a name a tag shadows is refused, never resolved to the tag: --base, --head, and --branch', () => {
    // An agent pushes its branch and tags its own head "origin/main" and "wave-2/bob"; the CI clone fetches tags.
    const agent = remote.clone('tagger');
    agent.git('checkout', '--quiet', '-b', 'wave-2/bob');
    agent.commit({ 'src/b/fine.ts': 'f\n', 'docs/readme.md': "not bob's\n" }, 'bob strays');
    agent.git('push', '--quiet', 'origin', 'wave-2/bob');
    agent.git('checkout', '--quiet', '-b', 'clean', 'origin/main');
    agent.commit({ 'src/b/clean.ts': 'c\n' }, 'a clean commit');
    agent.git('tag', 'origin/main', 'wave-2/bob');
    agent.git('tag', 'wave-2/bob', 'clean');
    agent.git('push', '--quiet', 'origin', 'refs/tags/origin/main', 'refs/tags/wave-2/bob');
    try {
      checkTagsCannotShadow();
    } finally {
      // The tags and the branch leave the shared remote with this test (the clones after it would fetch them).
      agent.git('push', '--quiet', '--delete', 'origin', 'refs/tags/origin/main', 'refs/tags/wave-2/bob', 'refs/heads/wave-2/bob');
    }
  });

  /** The checks of the test above, on a clone that fetched the agent's tags. */
  function checkTagsCannotShadow(): void {
    const checker = remote.clone('tag-ci');
    checker.git('fetch', '--quiet', '--tags', 'origin');
    const head = checker.git('rev-parse', 'refs/remotes/origin/wave-2/bob').trim();
    const shadowed = run(checker, ['verify', '--base', 'origin/main', '--head', head, '--wave', '2', '--agent', 'bob']);
    assert.equal(shadowed.status, 2, shadowed.stdout + shadowed.stderr);
    assert.match(shadowed.stderr, /^ERROR: "origin\/main" names 2 refs that point to different commits \(refs\/tags\/origin\/main, refs\/remotes\/origin\/main\): give the full ref/);
    const full = run(checker, ['verify', '--base', 'refs/remotes/origin/main', '--head', head, '--wave', '2', '--agent', 'bob']);
    assert.equal(full.status, 3, full.stderr);
    assert.match(full.stderr, /modified: docs\/readme\.md/);

    const map = join(remote.dir, 'tag-branches.json');
    writeFileSync(map, JSON.stringify({ version: 1, branches: [{ branch: 'wave-{wave}/{agent}' }] }));
    // The tag wave-2/bob names a clean commit: the branch of that name is verified, not the tag.
    for (const name of ['wave-2/bob', 'origin/wave-2/bob', 'refs/remotes/origin/wave-2/bob']) {
      const named = run(checker, ['verify', '--base', 'refs/remotes/origin/main', '--map', map, '--branch', name]);
      assert.equal(named.status, 3, `${name}: ${named.stdout}${named.stderr}`);
      assert.match(named.stderr, /^ERROR: origin\/wave-2\/bob: agent "bob" \(wave 2\) changed 1 path outside its scope/m, name);
    }
    const shadowedBase = run(checker, ['verify', '--base', 'origin/main', '--map', map, '--branch', 'wave-2/bob']);
    assert.equal(shadowedBase.status, 2, shadowedBase.stdout + shadowedBase.stderr);
    assert.match(shadowedBase.stderr, /^ERROR: "origin\/main" names 2 refs that point to different commits/);
    const missing = run(checker, ['verify', '--base', 'refs/remotes/origin/main', '--map', map, '--branch', 'wave-2/nobody']);
    assert.equal(missing.status, 2, missing.stderr);
    assert.match(missing.stderr, /^ERROR: wave-2\/nobody: no such branch: none of refs\/heads\/wave-2\/nobody, refs\/remotes\/origin\/wave-2\/nobody exists$/m);
  }

  it('paths as git stores them: an NFD entry grants its NFC and NFD spellings; a path that is not UTF-8 is outside every scope, shown quoted', () => {
    const nfd = branch('nfd-entry', (c) => c.write({ 'lib/cafe\u0301/x.ts': 'x\n', 'lib/caf\u00e9/y.ts': 'y\n' }));
    const granted = verify(nfd, 'dave');
    assert.equal(granted.status, 0, granted.stderr);
    // A file name of raw bytes (0xff is never UTF-8), and one with an escape sequence that would clear a terminal.
    const bytes = branch('raw-bytes', (c) => {
      const blob = c.git('hash-object', '-w', '--stdin').trim();
      const tree = execFileSync('git', ['mktree'], {
        cwd: c.root,
        input: Buffer.concat([Buffer.from(c.git('ls-tree', 'HEAD')), Buffer.from(`100644 blob ${blob}\tsrc-\xff.ts\n`, 'latin1'), Buffer.from(`100644 blob ${blob}\tsrc-\u001b[2J.ts\n`)]),
      }).toString().trim();
      c.git('read-tree', tree);
    }, false);
    const result = verify(bytes, 'bob');
    assert.equal(result.status, 3, result.stderr);
    const lines = result.stderr.trimEnd().split('\n').slice(1);
    assert.deepEqual(lines.sort(), ['  added: "src-\\u{1b}[2J.ts"', '  added: "src-\\377.ts" (not UTF-8: no scope names it)'].sort());
    const report = JSON.parse(verify(bytes, 'bob', ['--json']).stdout);
    assert.deepEqual(report.branches[0].outside.find((change: { undecodable?: boolean }) => change.undecodable), { path: '"src-\\377.ts"', kind: 'added', undecodable: true });
  });

  it('decides on what was published and on the objects themselves: the published case rule, real commits, the pinned clone, a full ref', () => {
    // alice owns src/a/ in a plan proven case-sensitively (published with ignoreCase false); SRC/A/ is another path.
    const otherCase = branch('other-case', (c) => c.write({ 'SRC/A/new.ts': 'n\n' }));
    ci.git('config', 'core.ignorecase', 'true');
    try {
      const folded = verify(otherCase);
      assert.equal(folded.status, 3, folded.stdout + folded.stderr);
      assert.match(folded.stderr, /added: SRC\/A\/new\.ts/);
    } finally {
      ci.git('config', '--unset', 'core.ignorecase');
    }

    // A replace ref makes git show the in-scope commit's tree under the out-of-scope commit's id.
    const outside = ci.git('rev-parse', branch('replaced-outside', (c) => c.write({ 'src/b/z.ts': 'z2\n' }))).trim();
    const inside = ci.git('rev-parse', branch('replaced-inside', (c) => c.write({ 'src/a/x.ts': 'x3\n' }))).trim();
    ci.git('replace', outside, inside);
    try {
      assert.match(ci.git('show', '--name-only', '--format=', outside), /src\/a\/x\.ts/, 'git itself now shows the stand-in');
      const replaced = verify(outside);
      assert.equal(replaced.status, 3, replaced.stdout + replaced.stderr);
      assert.match(replaced.stderr, /modified: src\/b\/z\.ts/);
    } finally {
      ci.git('replace', '-d', outside);
    }

    // A rule with {clone} names the clone in the branch: it never stands in for the clone --clone pins.
    const map = join(remote.dir, 'clone-branches.json');
    writeFileSync(map, JSON.stringify({ version: 1, branches: [{ branch: 'wave-{wave}/{clone}/{agent}' }] }));
    const other = 'c-0ther0clone00';
    const named = run(ci, ['verify', '--base', 'origin/main', '--map', map, '--head', inside, '--branch', `wave-2/${other}/alice`, '--clone', coordinatorClone]);
    assert.equal(named.status, 1, named.stdout + named.stderr);
    assert.match(named.stderr, new RegExp(`wave-2/${other}/alice names clone ${other}, and this run trusts only the plan of clone ${coordinatorClone} \\(--clone\\): not verified`));
    const pinned = run(ci, ['verify', '--base', 'origin/main', '--map', map, '--head', inside, '--branch', `wave-2/${coordinatorClone}/alice`, '--clone', coordinatorClone]);
    assert.equal(pinned.status, 0, pinned.stdout + pinned.stderr);
    // A rule's own "clone" is the map author's choice, and wins over --clone (sync.md, Whose plan CI trusts).
    writeFileSync(map, JSON.stringify({ version: 1, branches: [{ branch: 'fixed/{agent}', wave: 2, clone: other }] }));
    const ruled = run(ci, ['verify', '--base', 'origin/main', '--map', map, '--head', inside, '--branch', 'fixed/alice', '--clone', coordinatorClone]);
    assert.equal(ruled.status, 1, ruled.stdout + ruled.stderr);
    assert.match(ruled.stderr, /no published scope for agent "alice" in wave 2/);

    // A tag named like the full ref (refs/tags/refs/remotes/origin/main) cannot shadow it: git tries the full ref first.
    ci.git('tag', 'refs/remotes/origin/main', outside);
    try {
      const full = run(ci, ['verify', '--base', 'refs/remotes/origin/main', '--head', inside, '--wave', '2', '--agent', 'alice']);
      assert.equal(full.status, 0, full.stdout + full.stderr);
    } finally {
      ci.git('tag', '-d', 'refs/remotes/origin/main');
    }
  });

  it('a graft file cannot rewrite the history it judges: the merge base is the commits\' own', () => {
    // A branch off main's parent; info/grafts gives main the head as a second parent, so git takes the head
    // for the merge base and sees no change at all. Like a replace ref, a graft is not what the commits hold.
    const base = ci.git('rev-parse', 'origin/main').trim();
    const parent = ci.git('rev-parse', `${base}^`).trim();
    ci.git('checkout', '--quiet', '-B', 'grafted', parent);
    const head = ci.commit({ 'src/b/z.ts': 'grafted\n' }, 'grafted');
    ci.git('checkout', '--quiet', '--detach', 'origin/main');
    const grafts = join(ci.root, '.git/info/grafts');
    mkdirSync(join(ci.root, '.git/info'), { recursive: true });
    writeFileSync(grafts, `${base} ${parent} ${head}\n`);
    try {
      // git warns on stderr that grafts are deprecated, and still follows them.
      const gitsOwn = spawnSync('git', ['merge-base', '--all', base, head], { cwd: ci.root, encoding: 'utf8' });
      assert.equal(gitsOwn.stdout.trim(), head, 'git itself now takes the head for the merge base');
      const result = verify(head);
      assert.equal(result.status, 3, result.stdout + result.stderr);
      assert.match(result.stderr, /^ {2}modified: src\/b\/z\.ts$/m);
    } finally {
      rmSync(grafts);
    }
  });

  it('a shallow clone cannot hide a change: a merge base found below a cut of the history is refused', () => {
    // main: seed -> m (bob's readme) -> tip. alice's head merges the seed itself beside her work on m, and takes
    // the readme back to the seed's. Fetched with --depth=2 (a common way to fetch a pull request), her
    // commit on m is cut from its parents, so git finds the seed as the merge base, where the readme agrees.
    const author = remote.clone('shallow-author');
    const seed = author.git('rev-parse', 'origin/main').trim();
    author.git('checkout', '--quiet', '-b', 'shallow-main');
    const m = author.commit({ 'docs/readme.md': "bob's readme\n" }, 'm');
    author.commit({ 'src/b/later.ts': 'l\n' }, 'main moves on');
    author.git('checkout', '--quiet', '-b', 'shallow-alice', m);
    const work = author.commit({ 'src/a/shallow.ts': 's\n' }, 'alice works');
    author.git('checkout', seed, '--', 'docs/readme.md');
    const tree = author.git('write-tree').trim();
    const head = author.git('commit-tree', tree, '-p', seed, '-p', work, '-m', 'alice merges the seed').trim();
    author.git('checkout', '--quiet', '--force', '--detach', 'shallow-main');
    const plain = author.commit({ 'src/a/plain.ts': 'p\n' }, 'alice works on the tip');
    author.git('push', '--quiet', 'origin', 'shallow-main', `${head}:refs/heads/shallow-alice`, `${plain}:refs/heads/plain-alice`);

    const verifyIn = (clone: Clone, ref: string) => run(clone, ['verify', '--base', 'refs/remotes/origin/shallow-main', '--head', ref, '--wave', '2', '--agent', 'alice']);
    const full = remote.clone('full-history');
    const judged = verifyIn(full, 'refs/remotes/origin/shallow-alice');
    assert.equal(judged.status, 3, judged.stdout + judged.stderr);
    assert.match(judged.stderr, /^ {2}modified: docs\/readme\.md$/m);

    const shallow = remote.clone('shallow-history');
    shallow.git('fetch', '--quiet', '--depth=2', 'origin', '+refs/heads/shallow-alice:refs/remotes/pull/1');
    assert.equal(shallow.git('merge-base', 'refs/remotes/origin/shallow-main', 'refs/remotes/pull/1').trim(), seed, 'git sees the seed as the merge base');
    const cut = verifyIn(shallow, 'refs/remotes/pull/1');
    assert.equal(cut.status, 2, cut.stdout + cut.stderr);
    assert.match(cut.stderr, /^ERROR: refs\/remotes\/pull\/1: this clone is shallow and its history is cut at [0-9a-f]{12}, above the merge base/m);
    // A cut at the merge base does not matter: a branch off main's tip, fetched as shallow (its parent, main's
    // tip, is cut), is verified.
    shallow.git('fetch', '--quiet', '--depth=2', 'origin', '+refs/heads/plain-alice:refs/remotes/pull/2');
    assert.match(shallow.git('rev-parse', '--is-shallow-repository'), /^true/);
    const whole = verifyIn(shallow, 'refs/remotes/pull/2');
    assert.equal(whole.status, 0, whole.stdout + whole.stderr);
    assert.match(whole.stdout, /^ok refs\/remotes\/pull\/2: 1 change in /);
  });

  it('no published scope, no write: an unknown agent or wave fails (exit 1)', () => {
    const name = branch('unknown-agent', (c) => c.write({ 'src/a/x.ts': 'x2\n' }));
    const result = verify(name, 'mallory');
    assert.equal(result.status, 1);
    assert.match(result.stderr, /no published scope for agent "mallory" in wave 2 on origin's plan ref: no scope, no write/);
    const noPlan = remote.clone('fresh');
    const offline = run(noPlan, ['verify', '--base', 'origin/main', '--head', 'origin/main', '--wave', '2', '--agent', 'alice', '--no-fetch']);
    assert.equal(offline.status, 1);
    assert.match(offline.stderr, /on origin \(it has no plan ref\)/);
  });

  it('refuses bad arguments and bad revisions', () => {
    const cases: Array<[string[], number, RegExp]> = [
      [['verify', '--head', 'x', '--wave', '2', '--agent', 'a'], 1, /--base is required/],
      [['verify', '--base', 'origin/main', '--wave', '2', '--agent', 'a'], 1, /give --head with --wave and --agent/],
      [['verify', '--base', 'origin/main', '--head', 'HEAD', '--agent', 'a'], 1, /--wave and --agent go together/],
      [['verify', '--base=--upload-pack=x', '--head', 'HEAD', '--wave', '2', '--agent', 'alice'], 1, /--base must be a revision/],
      [['verify', '--base', '^origin/main', '--head', 'HEAD', '--wave', '2', '--agent', 'alice'], 1, /--base must be a revision, got "\^origin\/main" \(a negation; give the revision itself\)/],
      [['verify', '--base', 'origin/main', '--head', 'HEAD', '--wave', '2', '--agent', 'alice', '--ignore-case'], 1, /ignore-case/],
      [['verify', '--base', 'origin/main', '--map', '/nonexistent.json'], 1, /cannot read the branch map/],
      [['verify', '--base', 'origin/main', '--head', 'no-such-rev', '--wave', '2', '--agent', 'alice'], 2, /cannot resolve/],
    ];
    for (const [args, status, message] of cases) {
      const result = run(ci, args);
      assert.equal(result.status, status, `${args.join(' ')}: ${result.stderr}`);
      assert.match(result.stderr, message);
    }
  });
});

describe('wave-scope verify: test siblings another agent of the wave claims (built CLI)', function () {
  this.timeout(120_000);
  let remote: SharedRemote;
  let ci: Clone;
  before(() => {
    remote = createSharedRemote({ 'src/a/x.ts': 'x\n', 'src/c/x.ts': 'x\n', 'test/readme.md': 'tests\n' });
    const coordinator = remote.clone('coordinator');
    // alice's src/a/x.ts brings test/**/x.test.ts, which bob's test/ holds; carol's src/c/x.ts brings the same glob.
    const records = [
      { id: 'alice', files: ['src/a/x.ts'] },
      { id: 'bob', files: ['test/'] },
      { id: 'carol', files: ['src/c/x.ts'] },
    ];
    const plan = run(coordinator, ['plan', 'write', '--wave', '1', '--role', 'implementation'], JSON.stringify(records));
    assert.equal(plan.status, 0, plan.stderr);
    const published = run(coordinator, ['publish']);
    assert.equal(published.status, 0, published.stderr);
    ci = remote.clone('ci');
  });
  after(() => remote.remove());

  const branchWith = (name: string, files: Record<string, string>) => {
    ci.git('checkout', '--quiet', '-B', name, 'origin/main');
    ci.write(files);
    ci.git('add', '--all');
    ci.git('commit', '--quiet', '-m', name);
    ci.git('checkout', '--quiet', '--detach', 'origin/main');
    return name;
  };
  const verify = (head: string, agent: string) => run(ci, ['verify', '--base', 'origin/main', '--head', head, '--wave', '1', '--agent', agent]);

  it('fails the branch of the agent whose sibling another agent declares or shares, and names that agent', () => {
    const name = branchWith('alice-tests', { 'src/a/x.test.ts': 't\n', 'test/deep/x.test.ts': 't\n', 'tests/x.test.ts': 't\n' });
    const result = verify(name, 'alice');
    assert.equal(result.status, 3, result.stderr);
    const lines = result.stderr.trimEnd().split('\n').slice(1);
    assert.deepEqual(lines, [
      '  added: test/deep/x.test.ts (a test sibling that agent "bob" of the wave claims too)',
      '  added: tests/x.test.ts (a test sibling that agent "carol" of the wave claims too)',
    ]);
  });

  it('passes the same test file on the branch of the agent that declares its directory', () => {
    const result = verify(branchWith('bob-tests', { 'test/deep/x.test.ts': 't\n' }), 'bob');
    assert.equal(result.status, 0, result.stderr);
  });
});

describe("wave-scope verify: test siblings inside another clone's live claim (built CLI, two coordinators)", function () {
  this.timeout(120_000);
  let remote: SharedRemote;
  let ci: Clone;
  let laptop: Clone;
  before(() => {
    remote = createSharedRemote({ 'src/a/x.ts': 'x\n', 'src/d/y.ts': 'y\n', 'test/readme.md': 'tests\n' });
    // This clone's wave 1: alice's src/a/x.ts brings the glob sibling test/**/x.test.ts.
    const desk = remote.clone('desk');
    const deskPlan = run(desk, ['plan', 'write', '--wave', '1', '--role', 'implementation'], JSON.stringify([{ id: 'alice', files: ['src/a/x.ts'] }]));
    assert.equal(deskPlan.status, 0, deskPlan.stderr);
    assert.equal(run(desk, ['publish']).status, 0);
    // Another clone's wave 4: dave declares test/integration/, which publish's proof does not weigh against
    // alice's glob sibling (it leaves glob siblings out), so both claims stand.
    laptop = remote.clone('laptop');
    const laptopPlan = run(laptop, ['plan', 'write', '--wave', '4', '--role', 'implementation'], JSON.stringify([{ id: 'dave', files: ['test/integration/', 'src/d/y.ts'] }]));
    assert.equal(laptopPlan.status, 0, laptopPlan.stderr);
    const published = run(laptop, ['publish']);
    assert.equal(published.status, 0, published.stderr);
    ci = remote.clone('ci');
  });
  after(() => remote.remove());

  it("fails alice's branch for a test file in dave's claimed directory, naming him and his clone; once he releases, it passes", () => {
    ci.git('checkout', '--quiet', '-B', 'alice-tests', 'origin/main');
    ci.write({ 'src/a/x.ts': 'changed\n', 'test/integration/x.test.ts': 't\n', 'tests/x.test.ts': 't\n' });
    ci.git('add', '--all');
    ci.git('commit', '--quiet', '-m', 'alice tests');
    ci.git('checkout', '--quiet', '--detach', 'origin/main');
    const verify = () => run(ci, ['verify', '--base', 'origin/main', '--head', 'alice-tests', '--wave', '1', '--agent', 'alice']);
    const laptopClone = JSON.parse(readFileSync(join(laptop.root, '.git/wave-scope/clone.json'), 'utf8')) as { id: string; name: string };
    const result = verify();
    assert.equal(result.status, 3, result.stdout + result.stderr);
    assert.deepEqual(result.stderr.trimEnd().split('\n').slice(1), [
      `  added: test/integration/x.test.ts (a test sibling that agent "dave" of clone ${laptopClone.name} (${laptopClone.id}) claims, wave 4)`,
    ]);
    const json = JSON.parse(run(ci, ['verify', '--base', 'origin/main', '--head', 'alice-tests', '--wave', '1', '--agent', 'alice', '--json']).stdout) as {
      branches: Array<{ outside: Array<{ path: string; claimedBy?: unknown }> }>;
    };
    assert.deepEqual(json.branches[0]?.outside, [{ path: 'test/integration/x.test.ts', kind: 'added', claimedBy: { clone: laptopClone.id, cloneName: laptopClone.name, wave: 4, agent: 'dave' } }]);

    assert.equal(run(laptop, ['release', '--wave', '4']).status, 0);
    const released = verify();
    assert.equal(released.status, 0, released.stdout + released.stderr);
  });
});
