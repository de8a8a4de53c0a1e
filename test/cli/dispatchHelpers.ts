// Shared by the dispatch guard's CLI tests: payloads in Claude Code's PreToolUse / SubagentStart shape,
// transcripts in its JSONL shape (test/fixtures/transcripts/README.md), and readers for what the hook
// leaves behind (the ledger and the events).
import { existsSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { cleanEnv, runBuiltCli } from '../support/builtCli';
import type { CliRun } from '../support/builtCli';
import type { TempGitRepo } from '../support/tempGitRepo';

export const SESSION = '0f2c9a0e-5b1d-4d7e-9f3a-claude-session';

/** A prompt with a FILE-SCOPE block (and optional extra lines before it). */
export function scopedPrompt(entries: readonly string[], before = ''): string {
  return `${before}You own these files and no others.\nFILE-SCOPE — exactly these:\n\`\`\`\n${entries.join('\n')}\n\`\`\`\nReport when done.`;
}

export interface DispatchFields {
  cwd: string;
  prompt: string;
  description?: string;
  useId?: string;
  session?: string;
  transcriptPath?: string | null;
  background?: boolean;
  toolName?: string;
  subagentType?: string;
}

/** A PreToolUse payload of the dispatch tool, as Claude Code sends it. */
export function dispatchPayload(fields: DispatchFields): string {
  return JSON.stringify({
    session_id: fields.session ?? SESSION,
    ...(fields.transcriptPath === null ? {} : { transcript_path: fields.transcriptPath ?? join(fields.cwd, '.test-transcript.jsonl') }),
    cwd: fields.cwd,
    permission_mode: 'default',
    hook_event_name: 'PreToolUse',
    tool_name: fields.toolName ?? 'Agent',
    tool_input: {
      description: fields.description ?? 'work',
      prompt: fields.prompt,
      subagent_type: fields.subagentType ?? 'general-purpose',
      ...(fields.background === true ? { run_in_background: true } : {}),
    },
    ...(fields.useId !== undefined ? { tool_use_id: fields.useId } : {}),
  });
}

export function preDispatch(payload: string, env: Record<string, string> = {}, cwd?: string): CliRun {
  return runBuiltCli(['hook', 'pre-dispatch'], { input: payload, env: cleanEnv(env), ...(cwd !== undefined ? { cwd } : {}) });
}

/** What a Claude Code PreToolUse reply says. */
export function replyOf(stdout: string): { decision: 'allow' | 'warn' | 'deny'; text: string } {
  if (stdout.trim() === '') return { decision: 'allow', text: '' };
  const reply = JSON.parse(stdout) as { systemMessage?: string; hookSpecificOutput?: { permissionDecision?: string; permissionDecisionReason?: string; hookEventName?: string } };
  if (reply.hookSpecificOutput?.permissionDecision === 'deny') {
    if (reply.hookSpecificOutput.hookEventName !== 'PreToolUse') throw new Error(`unexpected event in ${stdout}`);
    return { decision: 'deny', text: reply.hookSpecificOutput.permissionDecisionReason ?? '' };
  }
  if (typeof reply.systemMessage === 'string') return { decision: 'warn', text: reply.systemMessage };
  throw new Error(`unrecognised reply ${stdout}`);
}

export function ledgerPath(root: string, session = SESSION): string {
  return join(root, '.orchestrator', `wave-dispatch-scopes.${session}.json`);
}

export interface LedgerFile {
  waveKey: string;
  transcriptPath?: string;
  waves: Record<string, Array<{ id: string; desc: string; useId?: string; files: string[]; at: string; agent?: string; bound?: { agentId: string } }>>;
}

export function readLedgerFile(root: string, session = SESSION): LedgerFile | undefined {
  const path = ledgerPath(root, session);
  return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as LedgerFile) : undefined;
}

export function ledgerIds(root: string, session = SESSION): string[] {
  const ledger = readLedgerFile(root, session);
  return ledger === undefined ? [] : Object.values(ledger.waves).flat().map((record) => record.id);
}

export function readEvents(root: string): Array<Record<string, unknown>> {
  const path = join(root, '.orchestrator', 'metrics', 'events.jsonl');
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

export function lastEvent(root: string, event = 'wave_dispatch.scope_checked'): Record<string, unknown> {
  const found = readEvents(root).filter((record) => record.event === event);
  const last = found[found.length - 1];
  if (last === undefined) throw new Error(`no ${event} event in ${root}`);
  return last;
}

/** Plans a wave through `plan write` (the one safe chain), so the guard finds declarations and a manifest. */
export function planWave(repo: TempGitRepo, wave: number, records: Array<{ id: string; files: string[] }>, env: Record<string, string> = {}): void {
  const run = runBuiltCli(['plan', 'write', '--wave', String(wave), '--role', 'implementation'], { cwd: repo.root, input: JSON.stringify(records), env: cleanEnv(env) });
  if (run.status !== 0) throw new Error(`plan write failed: ${run.stderr}`);
}

/** One transcript record in Claude Code's shape. */
export const transcript = {
  dispatch: (id: string, description: string, timestamp = new Date().toISOString()) => ({
    type: 'assistant',
    timestamp,
    message: { role: 'assistant', content: [{ type: 'tool_use', id, name: 'Agent', input: { description, prompt: '…', subagent_type: 'general-purpose' } }] },
  }),
  syncResult: (id: string, agentId = 'a0000001') => ({
    type: 'user',
    timestamp: new Date().toISOString(),
    message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: [{ type: 'text', text: 'Done.' }, { type: 'text', text: `agentId: ${agentId}\n<usage>total_tokens: 1200\ntool_uses: 3\nduration_ms: 60000</usage>` }] }] },
  }),
  write(path: string, rows: readonly unknown[]): void {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, rows.map((row) => `${JSON.stringify(row)}\n`).join(''));
  },
};

/**
 * A live lock holder: the lock directory, its modification time refreshed every 300 ms (as proper-lockfile's
 * holder does) until `release()`, so it is never stale. Needs the test's event loop: run hooks with runBuiltCliAsync.
 */
export function holdLock(lockPath: string): { release(): void } {
  mkdirSync(lockPath, { recursive: true });
  const touch = () => {
    const now = new Date();
    utimesSync(lockPath, now, now);
  };
  touch();
  const timer = setInterval(touch, 300);
  return { release: () => clearInterval(timer) };
}
