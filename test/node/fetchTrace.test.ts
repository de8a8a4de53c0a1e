import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FetchTraceReader, followFetchTrace, MAX_TRACE_CHARACTERS, TRACE_DESCRIPTOR, userTracesGit } from '../../src/node/fetchTrace';
import { gitPlanRefStore } from '../../src/node/planRefGit';
import { PLAN_REF, trackingRefOf } from '../../src/planner/sync/planRef';
import { createSharedRemote } from './gitRemotes';
import type { Clone, SharedRemote } from './gitRemotes';

/** The trace of a real `git fetch` of the plan ref in `clone`, as startPlanFetch asks for it (written into a file). */
function tracedFetch(clone: Clone, config: string[] = []): string {
  const trace = join(clone.root, '..', `trace-${Date.now().toString(36)}${Math.random().toString(36).slice(2)}.txt`);
  const run = spawnSync('git', [...config, 'fetch', '--quiet', 'origin', `+${PLAN_REF}:${trackingRefOf('origin')}`], {
    cwd: clone.root,
    env: { ...process.env, GIT_TRACE: trace, GIT_TRACE_PACKET: trace },
    encoding: 'utf8',
  });
  assert.equal(run.status, 0, run.stderr);
  return readFileSync(trace, 'utf8');
}

/** What a reader makes of `trace` handed over in pieces cut at `cuts`. */
function readInPieces(trace: string, cuts: number[]): { stored: string | undefined; knownAt: number | undefined } {
  const reader = new FetchTraceReader(PLAN_REF);
  let from = 0;
  let knownAt: number | undefined;
  for (const cut of [...cuts, trace.length]) {
    if (reader.take(trace.slice(from, cut)) && knownAt === undefined) knownAt = cut;
    from = cut;
  }
  return { stored: reader.stored, knownAt };
}

describe('reading a fetch\'s progress from its trace (src/node/fetchTrace.ts)', () => {
  let remote: SharedRemote;
  let published: string;
  // Cloned before the plan is published: a local clone links the remote's objects, so it would have them all.
  let b: Clone;
  let c: Clone;
  beforeEach(async () => {
    remote = createSharedRemote({ 'src/a.ts': 'a\n' });
    b = remote.clone('b');
    c = remote.clone('c');
    const a = remote.clone('a');
    const store = gitPlanRefStore(a.root, 'origin');
    published = await store.writeCommit(new Map([['wave-scope-plan.json', '{"version":1}\n'], ['claims.json', '{"version":1,"claims":[]}\n']]), null, 'plan');
    assert.deepEqual(store.push(published, null), { ok: true });
  });
  afterEach(() => remote.remove());

  it('names the commit a real fetch brings once the process storing it has ended, however the trace is cut', () => {
    const trace = tracedFetch(b);
    const storing = trace.search(/run_command: .*git unpack-objects/);
    const next = trace.indexOf('run_command:', storing + 1);
    assert.ok(storing !== -1 && next !== -1, trace);
    for (let cut = 0; cut <= trace.length; cut += 7) {
      const read = readInPieces(trace, [cut]);
      assert.equal(read.stored, published, `cut at ${cut}`);
      // Never before the line of the process started after the one that stored the objects is whole.
      assert.ok((read.knownAt as number) > next, `cut at ${cut}: known at ${read.knownAt}`);
    }
    const lineByLine = trace.split(/(?<=\n)/).map((_, index, lines) => lines.slice(0, index + 1).join('').length);
    assert.equal(readInPieces(trace, lineByLine).stored, published);
  });

  it('also when the fetch keeps what it brought as a pack (index-pack); says nothing of a fetch that brought nothing', () => {
    const trace = tracedFetch(c, ['-c', 'fetch.unpackLimit=1']);
    assert.match(trace, /run_command: .*git index-pack/);
    assert.equal(readInPieces(trace, []).stored, published);
    // Up to date: nothing is stored, so nothing is said (the fetch's end answers).
    const again = tracedFetch(c);
    assert.doesNotMatch(again, /unpack-objects|index-pack/);
    assert.equal(readInPieces(again, []).stored, undefined);
  });

  it('takes the commit only from the fetching side\'s listing of the plan ref, and nothing from lines it does not know', () => {
    const id = (digit: string) => digit.repeat(40);
    // Each conversation opens as protocol v2's does: the remote's first answer is its version.
    const lines = (...text: string[]) => ['packet:        fetch< version 2', ...text].map((line) => `12:00:00.000000 trace.c:1 ${line}\n`).join('');
    const read = (trace: string) => readInPieces(trace, []).stored;
    const storing = ['trace: run_command: git unpack-objects -q --pack_header=2,3', "trace: run_command: git rev-list --objects --stdin --not --all --quiet --alternate-refs"];
    assert.equal(read(lines(`packet:        fetch< ${id('a')} refs/heads/main`, `packet:        fetch< ${id('b')} ${PLAN_REF}`, ...storing)), id('b'));
    // The remote's own side of the conversation, or another ref's name that merely starts like it, is not the listing.
    assert.equal(read(lines(`packet:  upload-pack> ${id('c')} ${PLAN_REF}`, `packet:        fetch< ${id('d')} ${PLAN_REF}-other`, ...storing)), undefined);
    // A process started before the pack is stored says nothing; neither does a storing process with no listing.
    assert.equal(read(lines(`packet:        fetch< ${id('e')} ${PLAN_REF}`, "trace: run_command: unset GIT_PREFIX; 'git-upload-pack'", storing[0] as string)), undefined);
    assert.equal(read(lines(...storing)), undefined);
    // The first listing of the ref is the one git fetches.
    assert.equal(read(lines(`packet:        fetch< ${id('f')} ${PLAN_REF}`, `packet:        fetch< ${id('0')} ${PLAN_REF}`, ...storing)), id('f'));
  });

  it('gives up at once on a remote that answers in the original protocol (it lists every ref), and on a trace past its budget', () => {
    const trace = tracedFetch(b, ['-c', 'protocol.version=0']);
    assert.match(trace, /run_command: .*git unpack-objects/, 'the fetch stored what it brought');
    const reader = new FetchTraceReader(PLAN_REF);
    const firstAnswer = trace.search(/packet: +fetch< /);
    const through = trace.indexOf('\n', firstAnswer) + 1;
    assert.equal(reader.take(trace.slice(0, through)), true, 'decided at the first answer');
    assert.equal(reader.stored, undefined);
    assert.equal(reader.take(trace.slice(through)), true);
    assert.equal(reader.stored, undefined);
    // Over protocol v2, nothing is looked at beyond MAX_TRACE_CHARACTERS.
    const v2 = tracedFetch(c);
    const padded = v2.replace(/(packet: +fetch< version 2\n)/, `$1${'12:00:00.000000 trace.c:1 packet:        fetch> have 0000\n'.repeat(Math.ceil(MAX_TRACE_CHARACTERS / 40))}`);
    assert.equal(readInPieces(padded, []).stored, undefined);
    assert.equal(readInPieces(v2, []).stored, published);
  });

  it('follows a fetch\'s trace in a file that has no name before git starts, handed to git as its descriptor 3', async () => {
    const temporary = mkdtempSync(join(tmpdir(), 'trace-home-'));
    const systemTemporary = process.env.TMPDIR;
    process.env.TMPDIR = temporary;
    let trace;
    try {
      trace = followFetchTrace(PLAN_REF, {}, 'linux');
    } finally {
      if (systemTemporary === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = systemTemporary;
    }
    try {
      assert.ok(trace !== undefined);
      // Nothing named is left for a killed sync or git to leave behind.
      assert.deepEqual(readdirSync(temporary), []);
      assert.deepEqual(trace.environment, { GIT_TRACE: String(TRACE_DESCRIPTOR), GIT_TRACE_PACKET: String(TRACE_DESCRIPTOR) });
      const run = spawnSync('git', ['fetch', '--quiet', 'origin', `+${PLAN_REF}:${trackingRefOf('origin')}`], {
        cwd: b.root,
        env: { ...process.env, ...trace.environment },
        stdio: ['ignore', 'pipe', 'pipe', trace.descriptor],
        encoding: 'utf8',
      });
      assert.equal(run.status, 0, run.stderr);
      assert.equal(run.stderr, '', 'git traced into the file, not onto its standard error');
      // Followed as it grows (the watch), or at the latest as it ends.
      trace.end();
      assert.equal(await trace.stored, published);
    } finally {
      trace?.end();
      rmSync(temporary, { recursive: true, force: true });
    }
  });

  it('traces nothing on Windows, where a file in use keeps its name', () => {
    assert.equal(followFetchTrace(PLAN_REF, {}, 'win32'), undefined);
  });

  it('traces a fetch only when the user does not trace git already', () => {
    assert.equal(userTracesGit({}), false);
    assert.equal(userTracesGit({ GIT_TRACE: '1' }), true);
    assert.equal(userTracesGit({ GIT_TRACE_PACKET: '/tmp/packets' }), true);
    assert.equal(userTracesGit({ GIT_TRACE: '' }), true);
    assert.equal(followFetchTrace(PLAN_REF, { GIT_TRACE: '2' }), undefined);
  });

});
