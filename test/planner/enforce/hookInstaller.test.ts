import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  commandFor,
  HOOK_REGISTRATIONS,
  HookConfigError,
  isOurCommand,
  isWrittenWholeByInstall,
  ourHookOf,
  planPreCommitInstall,
  planPreCommitRemoval,
  planSettingsInstall,
  planSettingsRemoval,
  preCommitHook,
  shellQuote,
} from '../../../src/planner/enforce/hookInstaller';
import { FAIL_OPEN_HOOKS, HOOK_NAMES } from '../../../src/planner/enforce/hookNames';
import type { ExistingHook, HookPlan, HookRegistration, PreCommitHook } from '../../../src/planner/enforce/hookInstaller';

const LAUNCHER = "'/r/.claude/wave-scope-hook.cjs'";
const command = (registration: HookRegistration) => commandFor(registration, LAUNCHER);
const files = [...new Set(HOOK_REGISTRATIONS.map((registration) => registration.configFile))];
const rowsOf = (file: string) => HOOK_REGISTRATIONS.filter((registration) => registration.configFile === file);

function install(text: string | undefined, file: string): string {
  const plan = planSettingsInstall(text, file, rowsOf(file), command);
  return plan.kind === 'write' ? plan.text : (text ?? '');
}

function uninstall(text: string, file: string): string | undefined {
  const plan = planSettingsRemoval(text, file, (rowsOf(file)[0] as HookRegistration).layout);
  if (plan.kind === 'delete') return undefined;
  return plan.kind === 'write' ? plan.text : text;
}

describe('hook installer: the table of registrations', () => {
  it('every row names its CLI, file, event and hook; the write gate rows fail closed where the CLI can', () => {
    for (const row of HOOK_REGISTRATIONS) {
      assert.ok(row.configFile !== '' && row.event !== '' && row.hook !== '', JSON.stringify(row));
      if (row.hook === 'enforce-write') assert.equal(row.whenLauncherFails, 'block');
      if (row.hook === 'session-start') assert.equal(row.whenLauncherFails, 'ignore');
    }
    assert.deepEqual(HOOK_REGISTRATIONS.find((row) => row.agentCli === 'claude' && row.hook === 'enforce-write')?.handlerOptions, { onFailure: 'block' });
    assert.deepEqual(HOOK_REGISTRATIONS.find((row) => row.agentCli === 'cursor')?.handlerOptions, { failClosed: true });
  });

  it('the Cursor matcher covers every tool the gate treats as a write, MCP included', () => {
    const matcher = HOOK_REGISTRATIONS.find((row) => row.agentCli === 'cursor')?.matcher ?? '';
    for (const tool of ['Write', 'Edit', 'MultiEdit', 'StrReplace', 'Delete', 'edit_file', 'write_file', 'delete_file', 'MCP:fs:write_file']) {
      assert.match(tool, new RegExp(`^(?:${matcher})$`), tool);
    }
  });

  it('the Gemini matcher, tested as Gemini CLI tests it (an unanchored RegExp), runs the gate for its file tools and every MCP tool, either spelling', () => {
    const matcher = new RegExp(HOOK_REGISTRATIONS.find((row) => row.agentCli === 'gemini' && row.hook === 'enforce-write')?.matcher ?? '^$');
    for (const tool of ['write_file', 'replace', 'mcp_filesystem_write_file', 'mcp_filesystem_edit_file', 'mcp_filesystem_move_file', 'mcp_filesystem_create_directory', 'mcp_my_server_writeFile', 'mcp__filesystem__edit_file']) {
      assert.ok(matcher.test(tool), tool);
    }
    for (const tool of ['read_file', 'run_shell_command', 'glob']) assert.ok(!matcher.test(tool), tool);
  });

  it('commands: ours are recognised by the launcher and the hook they run; a failing launcher blocks with a reason, or never blocks a session', () => {
    const gate = command(HOOK_REGISTRATIONS[0] as HookRegistration);
    assert.equal(ourHookOf(gate), 'enforce-write');
    assert.equal(ourHookOf('other-tool check'), undefined);
    assert.equal(isOurCommand(gate), true);
    // Whole commands of ours only, as some install-hooks wrote them (the older endings too); a user's own
    // command that mentions the launcher is theirs.
    for (const ending of ['', ' || exit 2', ' || true']) assert.equal(ourHookOf(`node ${LAUNCHER} stop --agent-cli codex${ending}`), 'stop', ending);
    assert.equal(ourHookOf(`node ${shellQuote("/home/o'brien/r/.claude/wave-scope-hook.cjs")} enforce-write --agent-cli gemini`), 'enforce-write');
    for (const theirs of [
      'cp .claude/wave-scope-hook.cjs /backup/',
      `node ${LAUNCHER} enforce-write --agent-cli claude | tee -a hook.log`,
      `node ${LAUNCHER} enforce-write --agent-cli claude; ./my-check.sh`,
      `${gate} && ./my-check.sh`,
      `node '/r/.claude/not-wave-scope-hook.cjs' enforce-write --agent-cli claude`,
    ]) {
      assert.equal(ourHookOf(theirs), undefined, theirs);
    }
    // A command of megabytes is not ours, and is not handed to the regex (whose backtracking stack it exhausted).
    assert.equal(ourHookOf(`node '${'a'.repeat(9_000_000)}`), undefined);
    assert.match(gate, /\|\| \{ s=\$\?; \[ "\$s" -eq 2 \] \|\| echo '.*' >&2; exit 2; \}$/);
    const session = command(HOOK_REGISTRATIONS.find((row) => row.hook === 'session-start') as HookRegistration);
    assert.match(session, /session-start --agent-cli claude \|\| \{ echo '.*letting this through.*' >&2; true; \}$/);
  });

  // The events each CLI has (docs/hooks.md cites the sources): a row for an event the CLI lacks would never run.
  const EVENTS: Record<string, readonly string[]> = {
    claude: ['PreToolUse', 'PostToolUse', 'SessionStart', 'SubagentStart', 'SubagentStop', 'Stop', 'UserPromptSubmit'],
    codex: ['PreToolUse', 'PostToolUse', 'SessionStart', 'SubagentStop', 'Stop', 'UserPromptSubmit'],
    cursor: ['preToolUse'],
    gemini: ['BeforeTool', 'SessionStart'],
  };
  const cases: Array<{ hook: string; clis: string[]; whenLauncherFails: 'block' | 'ignore' }> = [
    { hook: 'enforce-write', clis: ['claude', 'codex', 'cursor', 'gemini'], whenLauncherFails: 'block' },
    { hook: 'session-start', clis: ['claude', 'codex', 'gemini'], whenLauncherFails: 'ignore' },
    { hook: 'pre-dispatch', clis: ['claude'], whenLauncherFails: 'ignore' },
    { hook: 'subagent-start', clis: ['claude'], whenLauncherFails: 'ignore' },
    { hook: 'post-bash', clis: ['claude', 'codex'], whenLauncherFails: 'block' },
    { hook: 'stop', clis: ['claude', 'codex'], whenLauncherFails: 'ignore' },
    { hook: 'turn-start', clis: ['claude', 'codex'], whenLauncherFails: 'ignore' },
  ];
  for (const { hook, clis, whenLauncherFails } of cases) {
    it(`${hook}: registered for ${clis.join(', ')} on events each CLI has, and ${whenLauncherFails === 'block' ? 'blocks' : 'lets the call through'} when the launcher cannot start`, () => {
      const rows = HOOK_REGISTRATIONS.filter((row) => row.hook === hook);
      assert.deepEqual([...new Set(rows.map((row) => row.agentCli))], clis);
      for (const row of rows) {
        assert.ok(EVENTS[row.agentCli]?.includes(row.event), `${row.agentCli} has no event ${row.event}`);
        assert.equal(row.whenLauncherFails, whenLauncherFails);
        const text = command(row);
        assert.equal(ourHookOf(text), hook);
        if (whenLauncherFails === 'block') assert.match(text, /exit 2; \}$/);
        else assert.doesNotMatch(text, /exit 2/, 'a hook that fails open never exits 2');
      }
    });
  }

  it('the launcher and the installed commands agree on which hooks fail open, and every row runs a hook the CLI serves', () => {
    for (const row of HOOK_REGISTRATIONS) {
      assert.ok((HOOK_NAMES as readonly string[]).includes(row.hook), row.hook);
      assert.equal(row.whenLauncherFails === 'ignore', FAIL_OPEN_HOOKS.has(row.hook), row.hook);
    }
  });

  it('the backstop runs after every shell call and at both ends of a turn, the guard on the dispatch tool under both its names', () => {
    const shape = (cli: string) =>
      HOOK_REGISTRATIONS.filter((row) => row.agentCli === cli && row.hook !== 'enforce-write' && row.hook !== 'session-start').map(
        (row) => `${row.event}${row.matcher !== undefined ? `(${row.matcher})` : ''}:${row.hook}`,
      );
    assert.deepEqual(shape('claude'), ['PreToolUse(Agent|Task):pre-dispatch', 'SubagentStart(*):subagent-start', 'PostToolUse(Bash):post-bash', 'Stop:stop', 'SubagentStop:stop', 'UserPromptSubmit:turn-start']);
    assert.deepEqual(shape('codex'), ['PostToolUse(Bash):post-bash', 'Stop:stop', 'SubagentStop:stop', 'UserPromptSubmit:turn-start']);
  });
});

describe('hook installer: settings files edited in place', () => {
  for (const file of files) {
    const flat = (rowsOf(file)[0] as HookRegistration).layout === 'flat';
    const event = (rowsOf(file)[0] as HookRegistration).event;
    const foreign = flat ? `[{ "command": "other-tool check" }]` : `[{ "matcher": "Bash", "hooks": [{ "type": "command", "command": "other-tool check" }] }]`;
    const original = [
      '{',
      '    // settings kept by hand',
      flat ? '    "version": 1,' : '    "model": "x",',
      '    "big": 12345678901234567890,',
      '    "dup": 1,',
      '    "dup": 2,',
      '    "hooks": {',
      `        "${event}": ${foreign},`,
      '        "Stop": [{ "hooks": [{ "type": "command", "command": "notify" }] }]',
      '    }',
      '}',
      '',
    ].join('\n');

    describe(file, () => {
      it('install keeps every byte outside our entries (comments, precision, duplicate keys), and is idempotent', () => {
        const once = install(original, file);
        assert.notEqual(once, original);
        assert.equal(install(once, file), once, 'a second install changes nothing');
        for (const kept of ['// settings kept by hand', '12345678901234567890', '"dup": 1,', '"dup": 2,', 'other-tool check', 'notify']) assert.ok(once.includes(kept), kept);
        assert.equal(once.split('wave-scope-hook.cjs').length - 1, rowsOf(file).length, 'one entry per registration');
      });

      it('uninstall gives the bytes back', () => {
        assert.equal(uninstall(install(original, file), file), original);
        assert.equal(uninstall(original, file), original, 'nothing of ours: unchanged');
      });

      it('a missing file is created and, on uninstall, removed again', () => {
        const created = install(undefined, file);
        assert.ok(JSON.parse(created));
        assert.equal(uninstall(created, file), undefined);
      });

      it('refuses documents it cannot edit without loss', () => {
        const bad: Array<[string, string]> = [
          ['[]', 'not-an-object'],
          ['{ "hooks": [] }', 'hooks-not-an-object'],
          [`{ "hooks": { "${event}": {} } }`, 'event-not-an-array'],
          ['{ "hooks": {}, "hooks": {} }', 'duplicate-key'],
          ['{ "a": 1, }', 'not-json'],
        ];
        for (const [text, reason] of bad) {
          assert.throws(() => planSettingsInstall(text, file, rowsOf(file), command), (error: unknown) => error instanceof HookConfigError && error.reason === reason, text);
        }
      });
    });
  }

  it('an outdated entry of ours is replaced, not duplicated', () => {
    const file = '.claude/settings.json';
    // As install-hooks wrote it on 2026-12-01: a narrower matcher, and `|| exit 2` when the launcher cannot start.
    const old = `{\n  "hooks": {\n    "PreToolUse": [\n      { "matcher": "Edit|Write", "hooks": [{ "type": "command", "command": "node ${LAUNCHER} enforce-write --agent-cli claude || exit 2" }] }\n    ]\n  }\n}\n`;
    const next = install(old, file);
    const value = JSON.parse(next) as { hooks: { PreToolUse: Array<{ matcher: string; hooks: Array<{ command: string }> }> } };
    const gates = value.hooks.PreToolUse.filter((group) => group.hooks.some((handler) => ourHookOf(handler.command) === 'enforce-write'));
    assert.equal(gates.length, 1, 'one write gate, the outdated one replaced');
    assert.equal(gates[0]?.matcher, HOOK_REGISTRATIONS[0]?.matcher);
    assert.deepEqual(value.hooks.PreToolUse.map((group) => group.matcher), [HOOK_REGISTRATIONS[0]?.matcher, 'Agent|Task'], 'beside it, the dispatch guard');
  });

  it('install then uninstall is the identity on settings files of any layout (property)', () => {
    const file = '.claude/settings.json';
    const indent = fc.constantFrom('  ', '    ', '\t');
    const newline = fc.constantFrom('\n', '\r\n');
    const body = fc.record({
      others: fc.array(fc.tuple(fc.constantFrom('model', 'permissions', 'env', 'x'), fc.jsonValue({ maxDepth: 2 })), { maxLength: 3 }),
      hooks: fc.constantFrom('none', 'empty', 'empty-event', 'empty-event-beside', 'foreign', 'foreign-pretool'),
      compact: fc.boolean(),
    });
    fc.assert(
      fc.property(indent, newline, body, (unit, nl, { others, hooks, compact }) => {
        const doc: Record<string, unknown> = Object.fromEntries(others);
        if (hooks === 'empty') doc.hooks = {};
        if (hooks === 'empty-event') doc.hooks = { PreToolUse: [] };
        if (hooks === 'empty-event-beside') doc.hooks = { PreToolUse: [], Stop: [{ hooks: [{ type: 'command', command: 'notify' }] }] };
        if (hooks === 'foreign') doc.hooks = { Stop: [{ hooks: [{ type: 'command', command: 'notify' }] }] };
        if (hooks === 'foreign-pretool') doc.hooks = { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'guard' }] }] };
        const text = compact ? `${JSON.stringify(doc)}${nl}` : `${JSON.stringify(doc, null, unit).split('\n').join(nl)}${nl}`;
        const installed = install(text, file);
        const back = uninstall(installed, file);
        // `"hooks": {}` that only ours filled goes with ours (an empty object is not told apart from none).
        if (hooks === 'empty') return back === text || JSON.stringify(JSON.parse(back ?? '{}')) === JSON.stringify({ ...doc, hooks: undefined });
        // So does an empty event list that ours filled (it is not told apart from one install created): exactly that list goes.
        if (hooks === 'empty-event') return JSON.stringify(JSON.parse(back ?? '{}')) === JSON.stringify({ ...doc, hooks: undefined });
        if (hooks === 'empty-event-beside') return JSON.stringify(JSON.parse(back ?? '{}')) === JSON.stringify({ ...doc, hooks: { Stop: (doc.hooks as { Stop: unknown }).Stop } });
        return back === text || (back === undefined && Object.keys(doc).length === 0);
      }),
      { numRuns: 300 },
    );
  });
});

describe('hook installer: git pre-commit', () => {
  const guard = "node '/r/.claude/wave-scope-hook.cjs' commit-guard";
  const PATH = '/r/.git/hooks/pre-commit';
  const absent: ExistingHook = { kind: 'absent' };
  const file = (text: string | Uint8Array): ExistingHook => ({ kind: 'file', bytes: typeof text === 'string' ? new TextEncoder().encode(text) : text });
  const steps = (plan: HookPlan) => {
    assert.equal(plan.kind, 'steps', JSON.stringify(plan));
    return plan.kind === 'steps' ? plan.steps : [];
  };
  const written = (plan: HookPlan) => {
    const write = steps(plan).find((step) => step.kind === 'write');
    return write?.kind === 'write' ? write.text : '';
  };

  it('creates a hook, and uninstall deletes the file it created', () => {
    const text = written(planPreCommitInstall(PATH, absent, absent, guard));
    assert.match(text, /^#!\/bin\/sh\n/);
    assert.ok(text.includes(`${guard} || exit 1`));
    assert.deepEqual(steps(planPreCommitRemoval(PATH, file(text), absent)), [{ kind: 'remove', path: PATH }]);
  });

  it('puts the guard first in an existing shell hook, keeps the rest and its mode, and is idempotent', () => {
    const existing = '#!/usr/bin/env bash\nset -e\nnpm run lint-staged\n';
    const plan = planPreCommitInstall(PATH, file(existing), absent, guard);
    const step = steps(plan)[0];
    assert.equal(step?.kind === 'write' && step.keepMode, true);
    const once = written(plan);
    assert.ok(once.startsWith('#!/usr/bin/env bash\n# >>> wave-scope commit guard >>>'));
    assert.ok(once.endsWith('set -e\nnpm run lint-staged\n'));
    assert.deepEqual(steps(planPreCommitInstall(PATH, file(once), absent, guard)), []);
    assert.equal(written(planPreCommitRemoval(PATH, file(once), absent)), existing);
  });

  it('edits a shell hook that execs another program, or names $0 without exec', () => {
    for (const body of ['exec npx lint-staged "$@"\n', 'echo "$0 ran"\nexec make check\n', '# exec node "$0" is what a polyglot would do\nnpm test\n']) {
      const text = written(planPreCommitInstall(PATH, file(`#!/bin/sh\n${body}`), absent, guard));
      assert.ok(text.startsWith('#!/bin/sh\n# >>> wave-scope commit guard >>>') && text.endsWith(body), text);
    }
  });

  const shells = ['#!/bin/sh', '#!/bin/bash -e', '#!/usr/bin/env bash', '#!/usr/bin/env -S bash -eu', '#! /bin/dash', '#!/usr/bin/zsh', '#!/bin/ksh'];
  for (const shebang of shells) {
    it(`edits a hook whose interpreter is a shell (${shebang}) in place`, () => {
      const text = written(planPreCommitInstall(PATH, file(`${shebang}\nnpm test\n`), absent, guard));
      assert.ok(text.startsWith(`${shebang}\n# >>> wave-scope commit guard >>>`), text);
    });
  }

  it('a husky hook without a shebang gets the block on top', () => {
    const husky = 'npx lint-staged\n';
    const text = written(planPreCommitInstall(PATH, file(husky), absent, guard));
    assert.ok(text.startsWith('# >>> wave-scope commit guard >>>') && text.endsWith(husky));
    assert.equal(written(planPreCommitRemoval(PATH, file(text), absent)), husky);
  });

  const chained: Array<[string, ExistingHook]> = [
    ['a script in another language', file('#!/usr/bin/env python3\nprint("checks")\n')],
    ['a script in another language whose interpreter lies under a directory named sh', file('#!/opt/sh/bin/python3\nprint("checks")\n')],
    ['a script in another language whose interpreter names a shell in an option', file('#!/usr/bin/perl -Mbash\nprint "checks";\n')],
    ['a script env runs in another language', file('#!/usr/bin/env -S node --trace-warnings\nconsole.log("sh")\n')],
    ['a sh/JavaScript polyglot that execs itself in Node (our block would be a SyntaxError to Node)', file('#!/bin/sh\n":" //; exec node "$0" "$@"\nrequire("fs").writeFileSync(".ran", "yes");\n')],
    ['a shell hook that execs itself in another interpreter (${0}, no quotes, after a test)', file('#!/bin/bash\n[ -n "$X" ] && exec python3 ${0}\nprint("checks")\n')],
    ['a husky hook (no shebang) that execs itself in Node', file('":" //; exec /usr/bin/env node $0 "$@"\nconsole.log("checks");\n')],
    ['a binary (no shebang, NUL bytes)', file(new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 0, 1, 2, 0xff]))],
    ['text that is not UTF-8', file(new Uint8Array([0x23, 0x21, 0x2f, 0x62, 0x69, 0x6e, 0x2f, 0x73, 0x68, 0x0a, 0xe9, 0x0a]))],
    ['a symbolic link (never written through)', { kind: 'link', target: new TextEncoder().encode('../../tools/pre-commit') }],
    ['a shell script git skips (not executable: our block in it would never run)', { kind: 'file', bytes: new TextEncoder().encode('#!/bin/sh\nnpm test\n'), skippedByGit: true }],
    ['an empty file git skips', { kind: 'file', bytes: new Uint8Array(), skippedByGit: true }],
  ];
  for (const [name, existing] of chained) {
    it(`chains ${name} byte for byte: saved, link and all, then the wrapper that execs it replaces it; cut short between the two, finished or undone`, () => {
      const savedPath = `${PATH}.wave-scope-chained`;
      const plan = steps(planPreCommitInstall(PATH, existing, absent, guard));
      // Saved without being moved, so the hook is in place until the wrapper replaces it, which requires the saved copy.
      assert.deepEqual(plan[0], { kind: 'link', from: PATH, to: savedPath });
      const wrapper = plan[1]?.kind === 'write' ? plan[1].text : '';
      assert.deepEqual(plan[1], { kind: 'write', path: PATH, text: wrapper, keepMode: false, keptAt: savedPath });
      assert.equal(plan.length, 2);
      // What the first step alone leaves, the hook and the same hook saved beside it, is the install's own unfinished chain.
      assert.deepEqual(steps(planPreCommitInstall(PATH, existing, existing, guard)), [plan[1]], 'install finishes it');
      assert.deepEqual(steps(planPreCommitRemoval(PATH, existing, existing)), [{ kind: 'remove', path: savedPath, keptAt: PATH }], 'uninstall removes the extra copy, the hook left in place');
      assert.match(wrapper, /exec "\$\(dirname "\$0"\)\/pre-commit\.wave-scope-chained" "\$@"/);
      assert.match(wrapper, /\[ -x "\$\(dirname "\$0"\)\/pre-commit\.wave-scope-chained" \] \|\| exit 0\nexec/, 'run only when git would run it');
      // One step: the saved hook renamed over the wrapper, so there is always a pre-commit hook.
      assert.deepEqual(steps(planPreCommitRemoval(PATH, file(wrapper), existing)), [{ kind: 'rename', from: `${PATH}.wave-scope-chained`, to: PATH }]);
      assert.deepEqual(steps(planPreCommitInstall(PATH, file(wrapper), existing, guard)), [], 're-install leaves our wrapper be');
    });
  }

  it('in husky\'s layout, the wrapper runs the saved hook as husky\'s runner would (sh -e, whatever its mode), and is ours for re-install and uninstall', () => {
    const savedPath = `${PATH}.wave-scope-chained`;
    const link: ExistingHook = { kind: 'link', target: new TextEncoder().encode('../scripts/precommit.sh') };
    const plan = steps(planPreCommitInstall(PATH, link, absent, guard, 'husky'));
    const wrapper = plan[1]?.kind === 'write' ? plan[1].text : '';
    assert.ok(wrapper.endsWith('[ -f "$(dirname "$0")/pre-commit.wave-scope-chained" ] || exit 0\nexec sh -e "$(dirname "$0")/pre-commit.wave-scope-chained" "$@"\n'), wrapper);
    assert.doesNotMatch(wrapper, /\[ -x /);
    assert.deepEqual(steps(planPreCommitInstall(PATH, file(wrapper), link, guard, 'husky')), [], 're-install leaves it be');
    assert.deepEqual(steps(planPreCommitRemoval(PATH, file(wrapper), link)), [{ kind: 'rename', from: savedPath, to: PATH }]);
    assert.equal(isWrittenWholeByInstall(new TextEncoder().encode(wrapper)), true);
    // A wrapper written on git's terms before (husky set up since, or an earlier version) is rewritten on husky's.
    const gitWrapper = written(planPreCommitInstall(PATH, link, absent, guard, 'git'));
    assert.deepEqual(steps(planPreCommitInstall(PATH, file(gitWrapper), link, guard, 'husky')), [{ kind: 'write', path: PATH, text: wrapper, keepMode: true }]);
  });

  it('never overwrites a saved original: another tool replaced our wrapper; with the hook gone, writes the wrapper again over nothing', () => {
    const saved = file('#!/usr/bin/env python3\n');
    assert.deepEqual(planPreCommitInstall(PATH, file('#!/bin/sh\necho other tool\n'), saved, guard), { kind: 'refused', reason: 'chained-exists', path: `${PATH}.wave-scope-chained` });
    assert.deepEqual(planPreCommitInstall(PATH, { kind: 'link' }, saved, guard), { kind: 'refused', reason: 'chained-exists', path: `${PATH}.wave-scope-chained` });
    // An install by an earlier version cut short after renaming the hook aside (or a wrapper someone deleted): finished, the saved hook chained.
    assert.deepEqual(steps(planPreCommitInstall(PATH, absent, saved, guard)), [{ kind: 'write', path: PATH, text: written(planPreCommitInstall(PATH, saved, absent, guard)), keepMode: false }]);
    assert.deepEqual(planPreCommitInstall(PATH, { kind: 'other' }, absent, guard), { kind: 'refused', reason: 'not-a-file', path: PATH });
  });

  it('takes a saved hook for an unfinished chain only when it is the same hook: the same bytes and mode, or a link with the same target, holding nothing of ours', () => {
    const savedPath = `${PATH}.wave-scope-chained`;
    const bytes = (text: string) => new TextEncoder().encode(text);
    const python = '#!/usr/bin/env python3\nprint("checks")\n';
    const inPlace = written(planPreCommitInstall(PATH, file('#!/bin/sh\nnpm test\n'), absent, guard));
    const notTheSame: Array<[string, ExistingHook, ExistingHook]> = [
      ['other bytes', { kind: 'file', bytes: bytes(python), mode: 0o755 }, { kind: 'file', bytes: bytes(`${python}# edited\n`), mode: 0o755 }],
      ['the same bytes, another mode (git would run one and skip the other)', { kind: 'file', bytes: bytes(python), mode: 0o755 }, { kind: 'file', bytes: bytes(python), mode: 0o644 }],
      ['links to other targets', { kind: 'link', target: bytes('a') }, { kind: 'link', target: bytes('b') }],
      ['links whose targets were not read', { kind: 'link' }, { kind: 'link' }],
      ['a file and a link', { kind: 'file', bytes: bytes('a') }, { kind: 'link', target: bytes('a') }],
      ['a shell hook holding our block, copied', file(inPlace), file(inPlace)],
    ];
    for (const [name, hook, saved] of notTheSame) {
      assert.deepEqual(planPreCommitInstall(PATH, hook, saved, guard), { kind: 'refused', reason: 'chained-exists', path: savedPath }, name);
      assert.deepEqual(planPreCommitRemoval(PATH, hook, saved), { kind: 'refused', reason: 'chained-exists', path: savedPath }, name);
    }
    const same: ExistingHook = { kind: 'file', bytes: bytes(python), mode: 0o755 };
    assert.deepEqual(steps(planPreCommitInstall(PATH, same, { ...same, bytes: bytes(python) }, guard)).map((step) => step.kind), ['write'], 'equal bytes, not the same array');
  });

  it('uninstall and re-install refuse a wrapper or a block edited by hand; one install-hooks wrote for another launcher path, or the earlier wrapper, is ours', () => {
    const saved = file('#!/usr/bin/env python3\n');
    const wrapperFor = (command: string) => written(planPreCommitInstall(PATH, saved, absent, command));
    const wrapper = wrapperFor(guard);
    const ours: Array<[string, string]> = [
      ['as written', wrapper],
      ['for a launcher elsewhere (a moved checkout)', wrapperFor("node '/moved/r/.claude/wave-scope-hook.cjs' commit-guard")],
      ['for a launcher path with a quote in it', wrapperFor(`node '/r/it'\\''s/.pi/wave-scope-hook.cjs' commit-guard`)],
      ['by an earlier version (no check that the saved hook is executable)', wrapper.replace(/\[ -x .*\n/, '')],
    ];
    for (const [name, text] of ours) {
      assert.deepEqual(steps(planPreCommitRemoval(PATH, file(text), saved)), [{ kind: 'rename', from: `${PATH}.wave-scope-chained`, to: PATH }], name);
      assert.deepEqual(steps(planPreCommitRemoval(PATH, file(text), absent)), [{ kind: 'remove', path: PATH }], name);
      assert.deepEqual(steps(planPreCommitInstall(PATH, file(text), saved, guard)), text === wrapper ? [] : [{ kind: 'write', path: PATH, text: wrapper, keepMode: true }], name);
    }
    const editedWrappers: Array<[string, string]> = [
      ['a line added before the saved hook runs', wrapper.replace('[ -x ', 'npm test\n[ -x ')],
      ['a line appended', `${wrapper}echo done\n`],
      ['the lines that run the saved hook removed', wrapper.slice(0, wrapper.indexOf('[ -x '))],
      ['the guard block removed', wrapper.replace(/# >>>[\s\S]*<<<\n/, '')],
      ['a guard command that is not ours', wrapper.replace('/r/.claude/wave-scope-hook.cjs', '/r/.claude/other-hook.cjs')],
      ['line ends changed to CRLF', wrapper.replace(/\n/g, '\r\n')],
    ];
    for (const [name, text] of editedWrappers) {
      for (const chained of [saved, absent]) {
        assert.deepEqual(planPreCommitRemoval(PATH, file(text), chained), { kind: 'refused', reason: 'wrapper-edited', path: PATH }, name);
        assert.deepEqual(planPreCommitInstall(PATH, file(text), chained, guard), { kind: 'refused', reason: 'wrapper-edited', path: PATH }, name);
      }
    }
    const inPlace = written(planPreCommitInstall(PATH, file('#!/bin/sh\nnpm test\n'), absent, guard));
    const editedBlocks: Array<[string, string]> = [
      ['a line added inside', inPlace.replace(' || exit 1\n', ' || exit 1\necho passed\n')],
      ['its comment changed', inPlace.replace('# Added by', '# Put here by')],
      ['its last line removed', inPlace.replace('# <<< wave-scope commit guard <<<\n', '')],
      ['its first line removed', inPlace.replace('# >>> wave-scope commit guard >>>\n', '')],
      ['a second block', inPlace.replace('npm test\n', `npm test\n${inPlace.slice(inPlace.indexOf('# >>>'), inPlace.indexOf('npm test'))}`)],
    ];
    for (const [name, text] of editedBlocks) {
      assert.deepEqual(planPreCommitRemoval(PATH, file(text), absent), { kind: 'refused', reason: 'block-edited', path: PATH }, name);
      assert.deepEqual(planPreCommitInstall(PATH, file(text), absent, guard), { kind: 'refused', reason: 'block-edited', path: PATH }, name);
    }
    const moved = written(planPreCommitInstall(PATH, file('#!/bin/sh\nnpm test\n'), absent, "node '/moved/r/.claude/wave-scope-hook.cjs' commit-guard"));
    assert.equal(written(planPreCommitRemoval(PATH, file(moved), absent)), '#!/bin/sh\nnpm test\n', 'a block for a launcher elsewhere is ours');
    assert.equal(written(planPreCommitInstall(PATH, file(moved), absent, guard)), inPlace, 'and is brought up to date');
  });

  it('uninstall puts the saved hook back when the wrapper is gone, and never over another hook', () => {
    const saved = file('#!/usr/bin/env python3\n');
    const chainedPath = `${PATH}.wave-scope-chained`;
    assert.deepEqual(steps(planPreCommitRemoval(PATH, absent, saved)), [{ kind: 'rename', from: chainedPath, to: PATH }]);
    assert.deepEqual(steps(planPreCommitRemoval(PATH, absent, { kind: 'link' })), [{ kind: 'rename', from: chainedPath, to: PATH }]);
    const inPlace = written(planPreCommitInstall(PATH, file('#!/bin/sh\nnpm test\n'), absent, guard));
    const others: Array<[string, ExistingHook]> = [
      ['another tool\'s hook', file('#!/bin/sh\necho other tool\n')],
      ['a shell hook holding our block', file(inPlace)],
      ['a binary', file(new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 0]))],
      ['a symbolic link', { kind: 'link' }],
      ['a directory', { kind: 'other' }],
    ];
    for (const [name, existing] of others) {
      assert.deepEqual(planPreCommitRemoval(PATH, existing, saved), { kind: 'refused', reason: 'chained-exists', path: chainedPath }, name);
    }
  });

  it('leaves a hook without our block alone on uninstall', () => {
    assert.deepEqual(steps(planPreCommitRemoval(PATH, file('#!/bin/sh\nexit 0\n'), absent)), []);
    assert.deepEqual(steps(planPreCommitRemoval(PATH, absent, absent)), []);
    assert.deepEqual(steps(planPreCommitRemoval(PATH, { kind: 'link' }, absent)), []);
  });

  it('tells a text install-hooks writes whole on its own (a leftover of it holds nothing of a user\'s) from any other', () => {
    const bytes = (text: string) => new TextEncoder().encode(text);
    const created = written(planPreCommitInstall(PATH, absent, absent, guard));
    const wrapper = written(planPreCommitInstall(PATH, { kind: 'link' }, absent, guard));
    const otherLauncher = "node '/moved/.cursor/wave-scope-hook.cjs' commit-guard";
    const shellHook = '#!/bin/sh\nnpm test\n';
    const ours: Array<[string, string]> = [
      ['the hook install-hooks creates', created],
      ['the wrapper', wrapper],
      ['the wrapper, for another launcher path', written(planPreCommitInstall(PATH, { kind: 'link' }, absent, otherLauncher))],
      ["an earlier version's wrapper", wrapper.replace(/\[ -x [^\n]*\n/, '')],
    ];
    const theirs: Array<[string, string]> = [
      ["a user's shell hook with our block in it", written(planPreCommitInstall(PATH, file(shellHook), absent, guard))],
      ["a user's shell hook", shellHook],
      ['the created hook with a line added', `${created}echo mine\n`],
      ['the wrapper with a line changed', wrapper.replace('exit 0', 'exit 1')],
      ['the wrapper cut short', wrapper.slice(0, wrapper.length - 10)],
      ['nothing', ''],
    ];
    for (const [name, text] of ours) assert.equal(isWrittenWholeByInstall(bytes(text)), true, name);
    for (const [name, text] of theirs) assert.equal(isWrittenWholeByInstall(bytes(text)), false, name);
    assert.equal(isWrittenWholeByInstall(new Uint8Array([0xff, 0xfe, 0x00])), false, 'not text');
  });

  // The file we edit, the file git runs, and who runs ours: husky v9's generated runner (`.husky/_`) runs
  // the user's `.husky/pre-commit`; an older husky's `.husky` is a hooks directory git runs directly.
  const locations: Array<[string, PreCommitHook]> = [
    ['/c/.git/hooks', { file: '/c/.git/hooks/pre-commit', gitRuns: '/c/.git/hooks/pre-commit', runner: 'git' }],
    ['/w/.githooks/', { file: '/w/.githooks/pre-commit', gitRuns: '/w/.githooks/pre-commit', runner: 'git' }],
    ['/w/.husky/_', { file: '/w/.husky/pre-commit', gitRuns: '/w/.husky/_/pre-commit', runner: 'husky' }],
    ['/w/.husky/_/', { file: '/w/.husky/pre-commit', gitRuns: '/w/.husky/_/pre-commit', runner: 'husky' }],
    ['/w/.husky', { file: '/w/.husky/pre-commit', gitRuns: '/w/.husky/pre-commit', runner: 'git' }],
    ['/w/not.husky/_', { file: '/w/not.husky/_/pre-commit', gitRuns: '/w/not.husky/_/pre-commit', runner: 'git' }],
  ];
  for (const [dir, expected] of locations) {
    it(`hooks directory ${dir} → ${expected.file}, run by ${expected.runner}`, () => assert.deepEqual(preCommitHook(dir), expected));
  }
});
