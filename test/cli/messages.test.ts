import assert from 'node:assert/strict';
import { planShowMessages, printable, syncMessages } from '../../src/cli/messages';

describe('printable (src/cli/messages.ts): names and paths that are anyone\'s, shown on a terminal', () => {
  it('shows a plain text as it is, Unicode included', () => {
    for (const text of ['wave-2/alice', 'vm:/home/dev/repo', 'dïr/cödé.ts', 'a "quoted" \\ name']) assert.equal(printable(text), text);
  });

  it('quotes a text a terminal would act on, escaping what it would act on and the quoting itself', () => {
    assert.equal(printable('\u001b[2J\u001b]0;pwned\u0007'), '"\\u{1b}[2J\\u{1b}]0;pwned\\u{7}"');
    assert.equal(printable('line\nOK: forged\r'), '"line\\nOK: forged\\r"');
    assert.equal(printable('tab\there "q" \\'), '"tab\\there \\"q\\" \\\\"');
    assert.equal(printable('evil\u202egnp.ts'), '"evil\\u{202e}gnp.ts"', 'a bidirectional override');
    assert.equal(printable('\u009b31m'), '"\\u{9b}31m"', 'a C1 control (CSI)');
  });

  it('is applied to what plan show and sync print of a plan: entries, witnesses, roles, problems', () => {
    assert.equal(planShowMessages.entry('src/a/\u202etxt.exe', 1), '    "src/a/\\u{202e}txt.exe"  1 match');
    assert.match(syncMessages.corruptPlanRef('origin', 'unexpected path on the plan ref: \u001b[2K\rOK'), /\(("unexpected path on the plan ref: \\u\{1b\}\[2K\\rOK")\)/);
    const manifest = planShowMessages.manifest('.claude', '.claude/wave-scope.json', { wave: 1, role: 'x\u001b]0;t\u0007', enforcement: 'strict', allowed: 1, session: 'foreign', boundTo: ['s\u001b[2J'] });
    assert.doesNotMatch(manifest, /[\u0000-\u001f]/);
    assert.match(manifest, /bound to another session \("s\\u\{1b\}\[2J"\): this session's edits are not held to it, its commits are$/, 'the session id a manifest names is printed escaped too');
  });

  it('is applied to clone names in every claim line', () => {
    const line = syncMessages.claimedBy(1, 'vm:/tmp/x\u001b[2J', 'c-0123456789ab', '10:42');
    assert.equal(line, 'wave 1 claimed by clone "vm:/tmp/x\\u{1b}[2J" (c-0123456789ab) since 10:42');
    assert.doesNotMatch(line, /\u001b/);
  });
});
