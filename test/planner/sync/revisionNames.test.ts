import assert from 'node:assert/strict';
import { ambiguityOf, ambiguityOfSoleRef, branchRefCandidates, leadingRefName, refLookupCandidates } from '../../../src/planner/sync/revisionNames';

const C1 = '1'.repeat(40);
const C2 = '2'.repeat(40);

describe('revision names (src/planner/sync/revisionNames.ts)', () => {
  it('finds the ref name a revision starts with', () => {
    const cases: Array<[string, string | undefined]> = [
      ['origin/main', 'origin/main'],
      ['origin/main~2', 'origin/main'],
      ['v1.0^{commit}', 'v1.0'],
      ['main@{upstream}', 'main'],
      ['HEAD^2', 'HEAD'],
      ['refs/remotes/origin/main', 'refs/remotes/origin/main'],
      ['abc1234', 'abc1234'],
      [C1, undefined],
      ['f'.repeat(64), undefined],
      ['@', undefined],
      ['@{-1}', undefined],
      [':/fix the bug', undefined],
      ['HEAD:src/a.ts', 'HEAD'],
    ];
    for (const [revision, name] of cases) assert.equal(leadingRefName(revision), name, revision);
  });

  it('lists the refs git\'s lookup tries, in its order', () => {
    assert.deepEqual(refLookupCandidates('origin/main'), ['refs/origin/main', 'refs/tags/origin/main', 'refs/heads/origin/main', 'refs/remotes/origin/main', 'refs/remotes/origin/main/HEAD']);
    assert.equal(refLookupCandidates('refs/heads/x')[0], 'refs/heads/x');
  });

  it('calls a name ambiguous when refs of its lookup give different commits, when it is also HEAD, or may be an object id', () => {
    assert.equal(ambiguityOf('origin/main', []), undefined);
    assert.equal(ambiguityOf('origin/main', [{ ref: 'refs/remotes/origin/main', target: C1 }]), undefined);
    assert.equal(ambiguityOf('origin/main', [{ ref: 'refs/remotes/origin/main', target: C1 }, { ref: 'refs/tags/origin/main', target: C1 }]), undefined, 'the same commit either way');
    assert.match(
      ambiguityOf('origin/main', [{ ref: 'refs/tags/origin/main', target: C2 }, { ref: 'refs/remotes/origin/main', target: C1 }]) ?? '',
      /^"origin\/main" names 2 refs that point to different commits \(refs\/tags\/origin\/main, refs\/remotes\/origin\/main\)$/,
    );
    assert.equal(ambiguityOf('origin/main', [{ ref: 'refs/remotes/origin/main2', target: C2 }, { ref: 'refs/remotes/origin/main/x', target: C1 }]), undefined, 'only exact names count');
    assert.match(ambiguityOf('HEAD', [{ ref: 'refs/heads/HEAD', target: C1 }]) ?? '', /the checkout's own HEAD and also refs\/heads\/HEAD/);
    assert.equal(ambiguityOf('HEAD', []), undefined);
    assert.match(ambiguityOf('abc1234', [{ ref: 'refs/tags/abc1234', target: C1 }]) ?? '', /may be an abbreviated object id/);
  });

  it('a full ref that exists is never ambiguous (git tries it first); one that does not exist is never taken for another', () => {
    const full = 'refs/remotes/origin/main';
    // A tag named after the full ref: refs/tags/refs/remotes/origin/main, which git's lookup tries later.
    const shadow = { ref: 'refs/tags/refs/remotes/origin/main', target: C2 };
    assert.equal(ambiguityOf(full, [{ ref: full, target: C1 }, shadow]), undefined);
    assert.equal(ambiguityOf(full, [{ ref: full, target: C1 }, { ref: 'refs/refs/remotes/origin/main', target: C2 }]), undefined);
    assert.match(ambiguityOf(full, [shadow]) ?? '', /^"refs\/remotes\/origin\/main" is not a ref here; git would take refs\/tags\/refs\/remotes\/origin\/main for it$/);
    assert.equal(ambiguityOf(full, []), undefined, 'nothing exists: git cannot resolve it, and says so');
  });

  it('judges a name from the one ref git took for it only when that ref is one of the lookup\'s', () => {
    assert.deepEqual(ambiguityOfSoleRef('origin/main', 'refs/remotes/origin/main'), { problem: undefined });
    assert.deepEqual(ambiguityOfSoleRef('refs/heads/x', 'refs/heads/x'), { problem: undefined });
    assert.match(ambiguityOfSoleRef('refs/heads/x', 'refs/tags/refs/heads/x')?.problem ?? '', /is not a ref here; git would take refs\/tags\/refs\/heads\/x/);
    assert.match(ambiguityOfSoleRef('cafe', 'refs/heads/cafe')?.problem ?? '', /may be an abbreviated object id/);
    // git followed a symbolic ref (HEAD to its branch, a tag to main): which of the lookup's refs it found is unknown.
    assert.equal(ambiguityOfSoleRef('HEAD', 'refs/heads/main'), undefined);
    assert.equal(ambiguityOfSoleRef('refs/heads/x', 'refs/heads/main'), undefined);
    assert.equal(ambiguityOfSoleRef('origin/main', 'refs/remotes/origin/main2'), undefined);
  });

  it('a branch name means a local or the remote\'s branch, never a tag or another remote\'s', () => {
    assert.deepEqual(branchRefCandidates('wave-2/alice', 'origin'), ['refs/heads/wave-2/alice', 'refs/remotes/origin/wave-2/alice']);
    assert.deepEqual(branchRefCandidates('origin/wave-2/alice', 'origin'), ['refs/heads/origin/wave-2/alice', 'refs/remotes/origin/origin/wave-2/alice', 'refs/remotes/origin/wave-2/alice']);
    assert.deepEqual(branchRefCandidates('refs/heads/x', 'origin'), ['refs/heads/x']);
    assert.deepEqual(branchRefCandidates('refs/remotes/origin/x', 'origin'), ['refs/remotes/origin/x']);
    assert.deepEqual(branchRefCandidates('refs/tags/x', 'origin'), ['refs/heads/refs/tags/x', 'refs/remotes/origin/refs/tags/x']);
    assert.deepEqual(branchRefCandidates('upstream/x', 'origin'), ['refs/heads/upstream/x', 'refs/remotes/origin/upstream/x']);
  });
});
