import assert from 'node:assert/strict';
import { analyseDispatchScope, declaredAgent, hasScope } from '../../../src/planner/dispatch/dispatchScope';
import type { DeclaredWave } from '../../../src/planner/dispatch/dispatchScope';
import type { DispatchRequest } from '../../../src/planner/dispatch/dispatchRequest';
import { scopeDigest, scopeEchoInstruction } from '../../../src/planner/scope/scopeDigest';

const WAVE: DeclaredWave = {
  kind: 'declared',
  wave: 2,
  agents: [
    { id: 'alice', files: ['src/a/**', 'docs/a.md'], digest: scopeDigest(['src/a/**', 'docs/a.md']) },
    { id: 'bob', files: ['src/b/'], digest: scopeDigest(['src/b/']) },
    { id: 'coordinator', files: ['README.md'], digest: scopeDigest(['README.md']) },
  ],
};

function request(prompt: string, description = 'work'): DispatchRequest {
  return { toolName: 'Agent', description, prompt, background: false };
}

const block = (...entries: string[]) => `FILE-SCOPE\n\`\`\`\n${entries.join('\n')}\n\`\`\`\n`;

describe('analyseDispatchScope: which declared agent the prompt dispatches', () => {
  it('by an AGENT-ID line: the declared scope is used, and the block agrees', () => {
    const scope = analyseDispatchScope(request(`AGENT-ID: alice\n${block('src/a/**', 'docs/a.md')}`), WAVE);
    assert.equal(scope.declared.kind, 'matched');
    assert.deepEqual(scope.claim, ['src/a/**', 'docs/a.md']);
    assert.equal(scope.mismatch, undefined);
  });

  it('by the echo instruction\'s digest, with no block at all', () => {
    const scope = analyseDispatchScope(request(`Do it.\n${scopeEchoInstruction(scopeDigest(['src/b/']))}`), WAVE);
    assert.equal(scope.declared.kind, 'matched');
    assert.deepEqual(scope.declared.kind === 'matched' ? scope.declared.signals : [], ['digest']);
    assert.deepEqual(scope.claim, ['src/b/']);
    assert.equal(scope.prompt.kind, 'marker-absent');
    assert.equal(hasScope(scope), true, 'a declared agent without a block is still checked');
  });

  it('by the description equal to an id', () => {
    const scope = analyseDispatchScope(request('no block', 'bob'), WAVE);
    assert.equal(scope.declared.kind === 'matched' ? scope.declared.agent.id : '', 'bob');
  });

  it('a block that differs from the declaration: both are claimed, the difference is reported', () => {
    const scope = analyseDispatchScope(request(`AGENT-ID: alice\n${block('src/a/**', 'src/b/x.ts')}`), WAVE);
    assert.deepEqual(scope.mismatch, { missing: ['docs/a.md'], extra: ['src/b/x.ts'] });
    assert.deepEqual(scope.claim, ['src/a/**', 'docs/a.md', 'src/b/x.ts']);
  });

  it('signals naming different agents: a conflict, every named scope claimed', () => {
    const scope = analyseDispatchScope(request(`AGENT-ID: alice\n${scopeEchoInstruction(scopeDigest(['src/b/']))}`), WAVE);
    assert.equal(scope.declared.kind, 'conflict');
    assert.deepEqual(scope.claim, ['src/a/**', 'docs/a.md', 'src/b/']);
  });

  it('an id the wave does not declare, and the coordinator, are unknown', () => {
    assert.equal(analyseDispatchScope(request('AGENT-ID: zed'), WAVE).declared.kind, 'unknown');
    assert.equal(analyseDispatchScope(request('AGENT-ID: coordinator'), WAVE).declared.kind, 'unknown');
    assert.equal(analyseDispatchScope(request('AGENT-ID: alice'), { kind: 'none', reason: 'no-manifest' }).declared.kind, 'unknown');
  });

  it('names nothing: none, and without a block there is nothing to check', () => {
    const scope = analyseDispatchScope(request('Just do it.'), WAVE);
    assert.equal(scope.declared.kind, 'none');
    assert.equal(hasScope(scope), false);
  });
});

describe('declared agents: digests on demand', () => {
  it('an id and its own digest agree without computing any other agent\'s digest', () => {
    let asked = 0;
    const counted = (id: string, files: string[]) => {
      const agent = declaredAgent(id, files);
      return { id, files, get digest() { asked += 1; return agent.digest; } };
    };
    const wave: DeclaredWave = { kind: 'declared', wave: 1, agents: [counted('alice', ['src/a/']), ...Array.from({ length: 20 }, (_, i) => counted(`other${i}`, [`pkg${i}/`]))] };
    const scope = analyseDispatchScope(request(`AGENT-ID: alice\n${scopeEchoInstruction(scopeDigest(['src/a/']))}`), wave);
    assert.deepEqual(scope.declared.kind === 'matched' ? [...scope.declared.signals].sort() : [], ['digest', 'id']);
    assert.ok(asked <= 2, `asked for ${asked} digests`);
  });

  it('a digest of an entry the grammar refuses matches nothing (it never throws)', () => {
    const broken = declaredAgent('broken', ['../x']);
    assert.equal(broken.digest, 'invalid');
    assert.equal(analyseDispatchScope(request('AGENT-ID: broken'), { kind: 'declared', wave: 1, agents: [broken] }).declared.kind, 'matched');
  });
});

describe('analyseDispatchScope: the block', () => {
  it('a plain entry naming an existing directory means everything beneath it', () => {
    const scope = analyseDispatchScope(request(block('src/lib', 'src/lib.ts', 'src/new')), { kind: 'none', reason: 'no-manifest' }, { isDirectory: (path) => path === 'src/lib' });
    assert.deepEqual(scope.blockEntries, ['src/lib/', 'src/lib.ts', 'src/new']);
  });

  it('the echo line and the block: consistent when they carry one digest, inconsistent when not', () => {
    const own = analyseDispatchScope(request(`${block('src/b/')}${scopeEchoInstruction(scopeDigest(['src/b/']))}`), { kind: 'none', reason: 'no-manifest' });
    assert.equal(own.digestConsistent, true);
    assert.equal(own.scopeDigest, scopeDigest(['src/b/']));
    const other = analyseDispatchScope(request(`${block('src/a/**')}${scopeEchoInstruction(scopeDigest(['src/b/']))}`), { kind: 'none', reason: 'no-manifest' });
    assert.equal(other.digestConsistent, false);
    assert.equal(analyseDispatchScope(request(block('src/a/**')), { kind: 'none', reason: 'no-manifest' }).digestConsistent, null);
  });
});
