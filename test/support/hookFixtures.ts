import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TempGitRepo } from './tempGitRepo';

const fixtureDir = join(__dirname, '..', 'fixtures', 'hooks');

/** Replaces the placeholders of a fixture value, recursively, so JSON escaping stays right. */
function fill(value: unknown, replacements: Record<string, unknown>): unknown {
  if (typeof value === 'string') return value in replacements ? replacements[value] : value;
  if (Array.isArray(value)) return value.map((item) => fill(item, replacements));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, fill(item, replacements)]));
  }
  return value;
}

/** A documented payload shape (test/fixtures/hooks/<name>.json) with `__CWD__`, `__TARGET__` and `__PATCH__` filled in. */
export function hookPayload(name: string, fields: { cwd?: string; target?: unknown; patch?: string } = {}): string {
  const raw = JSON.parse(readFileSync(join(fixtureDir, `${name}.json`), 'utf8')) as unknown;
  return JSON.stringify(fill(raw, { __CWD__: fields.cwd, __TARGET__: fields.target, __PATCH__: fields.patch }));
}

export interface ManifestFields {
  wave?: number;
  role?: string;
  enforcement?: 'strict' | 'warn' | 'off';
  allowedPaths: string[];
  session_id?: string;
  /** The wave was proven with case folded (WaveManifest.ignoreCase). */
  ignoreCase?: boolean;
}

/** Writes `<stateDir>/wave-scope.json` into the repository (default state dir `.claude`). */
export function writeManifest(repo: TempGitRepo, fields: ManifestFields, stateDir = '.claude'): string {
  const manifest = {
    version: 1,
    wave: fields.wave ?? 1,
    role: fields.role ?? 'implementation',
    enforcement: fields.enforcement ?? 'strict',
    allowedPaths: fields.allowedPaths,
    blockedCommands: [],
    ...(fields.ignoreCase !== undefined ? { ignoreCase: fields.ignoreCase } : {}),
    ...(fields.session_id !== undefined ? { session_id: fields.session_id } : {}),
  };
  const path = `${stateDir}/wave-scope.json`;
  repo.write({ [path]: `${JSON.stringify(manifest, null, 2)}\n` });
  return join(repo.root, path);
}

/** The decision a Claude Code / Codex hook reply carries: allow (empty stdout), warn or deny. */
export function claudeDecision(stdout: string): { decision: 'allow' | 'warn' | 'deny'; text: string } {
  if (stdout.trim() === '') return { decision: 'allow', text: '' };
  const reply = JSON.parse(stdout) as {
    systemMessage?: string;
    hookSpecificOutput?: { hookEventName?: string; permissionDecision?: string; permissionDecisionReason?: string };
  };
  if (reply.hookSpecificOutput?.permissionDecision === 'deny') {
    if (reply.hookSpecificOutput.hookEventName !== 'PreToolUse') throw new Error(`unexpected hookEventName in ${stdout}`);
    return { decision: 'deny', text: reply.hookSpecificOutput.permissionDecisionReason ?? '' };
  }
  if (typeof reply.systemMessage === 'string') return { decision: 'warn', text: reply.systemMessage };
  throw new Error(`unrecognised hook reply: ${stdout}`);
}
