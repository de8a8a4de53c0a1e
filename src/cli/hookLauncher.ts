// The hook launcher: the one script every installed hook command runs (`node <state-dir>/<launcher>
// <hook> --agent-cli <cli>`). esbuild.mjs bundles this file to text, the CLI carries that text, and
// `install-hooks` writes it under the state directory with its configuration rendered in
// (planner/enforce/launcherConfig.ts). It finds the Wave Scope CLI at run time, so the hooks keep
// working after the extension upgrades into a new versioned directory, and loads the lean `hook.js`
// beside it in-process (no second Node start).
//
// It loads a CLI only from where an agent cannot write: WAVE_SCOPE_CLI (set by the user for the agent
// CLI; never believed by the commit guard, which runs in the committing shell), the paths recorded at
// install time, and the editors' extension folders; and never from inside the repository. When it
// finds none, or the one it finds fails to load, it fails closed, answering with the same reply
// formatter as the gate itself.
import type { spawnSync as SpawnSync } from 'node:child_process';
import { existsSync, lstatSync, readdirSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { FAIL_OPEN_HOOKS } from '../planner/enforce/hookNames';
import { HOOK_PROTOCOLS, hookReply } from '../planner/enforce/hookReplies';
import type { HookProtocol } from '../planner/enforce/hookReplies';
import { LAUNCHER_CONFIG_TOKEN, parseLauncherConfig } from '../planner/enforce/launcherConfig';
import { MANIFEST_FILE_NAME, STATE_DIR_NAMES } from '../planner/plan/stateDirNames';
import { launcherMessages as say } from './messages';

const config = parseLauncherConfig(LAUNCHER_CONFIG_TOKEN);
/** The hooks dist/dispatch.js serves on its own (src/cli/dispatchMain.ts). */
const DISPATCH_HOOKS: ReadonlySet<string> = new Set(['pre-dispatch', 'subagent-start']);
const args = process.argv.slice(2);
const hook = args[0] ?? '';

/** The agent CLI named by `--agent-cli`, when it names a known one. */
function protocolOf(argv: readonly string[]): HookProtocol | undefined {
  const index = argv.indexOf('--agent-cli');
  const value = index === -1 ? undefined : argv[index + 1];
  return (HOOK_PROTOCOLS as readonly string[]).includes(value ?? '') ? (value as HookProtocol) : undefined;
}

function realOrSelf(path: string): string {
  try {
    return realpathSync.native(path);
  } catch {
    return path;
  }
}

// The launcher lives in <repository>/<state-dir>/.
const repository = dirname(dirname(realOrSelf(__filename)));

function insideRepository(path: string): boolean {
  const real = realOrSelf(path);
  return real === repository || real.startsWith(`${repository}/`);
}

/** The newest Wave Scope extension's CLI in each editor's extension folder, newest first. */
function extensionClis(): string[] {
  const found: Array<{ version: number[]; cli: string }> = [];
  let home: string;
  try {
    home = homedir();
  } catch {
    return [];
  }
  for (const root of ['.vscode/extensions', '.vscode-server/extensions', '.vscode-insiders/extensions', '.cursor/extensions', '.cursor-server/extensions']) {
    let names: string[] = [];
    try {
      names = readdirSync(join(home, root));
    } catch {
      continue;
    }
    for (const name of names) {
      const match = /^wave-scope\.wave-scope-(\d+)\.(\d+)\.(\d+)/.exec(name);
      if (match) found.push({ version: match.slice(1).map(Number), cli: join(home, root, name, 'dist', 'cli.js') });
    }
  }
  const newer = (a: number[], b: number[]) => (b[0] ?? 0) - (a[0] ?? 0) || (b[1] ?? 0) - (a[1] ?? 0) || (b[2] ?? 0) - (a[2] ?? 0);
  return found.sort((a, b) => newer(a.version, b.version)).map((entry) => entry.cli);
}

/**
 * The CLIs to try, in order. Lazy, because the editors' extension folders are read only when neither
 * WAVE_SCOPE_CLI nor a recorded path gives a CLI: listing five folders is a measurable part of a hook's
 * start, and the first candidate almost always loads.
 */
function* candidates(): Generator<string> {
  const fromEnv = process.env.WAVE_SCOPE_CLI;
  // The commit guard runs in the committing shell, whose environment an agent controls.
  if (hook !== 'commit-guard' && fromEnv !== undefined && fromEnv !== '') yield fromEnv;
  yield* config.recorded;
  yield* extensionClis();
}

/** Whether the launcher's own repository has a manifest in any state directory (then a wave is active). */
function waveActive(): boolean {
  return STATE_DIR_NAMES.some((dir) => {
    try {
      lstatSync(join(repository, dir, MANIFEST_FILE_NAME));
      return true;
    } catch {
      return false;
    }
  });
}

function failClosed(detail: string): void {
  if (FAIL_OPEN_HOOKS.has(hook)) {
    // Exit 0 lets the call through; the note says the hook did not run (docs/hooks.md: failure policies).
    process.stderr.write(`${say.failedOpen(hook, detail)}\n`);
    return;
  }
  if (hook === 'enforce-write') {
    const reply = waveActive() ? hookReply(protocolOf(args), { decision: 'deny', reason: say.cliMissing(detail) }) : hookReply(protocolOf(args), { decision: 'allow' });
    if (reply.stdout !== '') process.stdout.write(reply.stdout);
    if (reply.stderr !== '') process.stderr.write(reply.stderr);
    process.exitCode = reply.exitCode;
    return;
  }
  process.stderr.write(`${say.cliMissing(detail)}\n`);
  // git blocks a commit on any non-zero exit; the agent CLIs block on 2.
  process.exitCode = hook === 'commit-guard' ? 1 : 2;
}

function main(): void {
  const skipped: string[] = [];
  for (const cli of candidates()) {
    const lean = join(dirname(cli), 'hook.js');
    const chosen = existsSync(lean) ? lean : cli;
    if (!existsSync(chosen)) continue;
    if (insideRepository(chosen)) {
      skipped.push(say.insideRepository(chosen));
      continue;
    }
    if (chosen === lean) {
      const load = createRequire(__filename);
      // The dispatch guard's hooks load their own bundle directly, without the write gate's. One that
      // cannot be loaded goes the long way, through hook.js, which reports the guard inactive and logs it.
      if (DISPATCH_HOOKS.has(hook)) {
        const dispatch = join(dirname(cli), 'dispatch.js');
        let runDispatch: ((argv: string[]) => Promise<void>) | undefined;
        try {
          runDispatch = existsSync(dispatch) ? (load(dispatch) as { runDispatchMain?(argv: string[]): Promise<void> }).runDispatchMain : undefined;
        } catch {
          runDispatch = undefined;
        }
        if (runDispatch !== undefined) {
          runDispatch(args).catch((error: unknown) => failClosed(say.loadFailed(dispatch, error instanceof Error ? error.message : String(error))));
          return;
        }
      }
      try {
        // Loaded at run time from wherever the CLI was found (never bundled into the launcher).
        (load(lean) as { runHookMain(argv: string[]): Promise<void> }).runHookMain(args).catch((error: unknown) => {
          failClosed(say.loadFailed(lean, error instanceof Error ? error.message : String(error)));
        });
      } catch (error) {
        failClosed(say.loadFailed(lean, error instanceof Error ? error.message : String(error)));
      }
      return;
    }
    // A CLI without the lean bundle beside it runs as a second process; node:child_process is loaded
    // only then (loading it is a measurable part of every write's latency).
    const { spawnSync } = createRequire(__filename)('node:child_process') as { spawnSync: typeof SpawnSync };
    const run = spawnSync(process.execPath, [cli, 'hook', ...args], { stdio: 'inherit' });
    process.exitCode = run.status === null ? 2 : run.status;
    return;
  }
  const places = ['WAVE_SCOPE_CLI', config.recorded.length > 0 ? config.recorded.join(', ') : say.nothingRecorded, 'the editor extension folders'].join(', ');
  failClosed([say.looked(places), ...skipped].join('; '));
}

main();
