// Which agent a branch belongs to, for verifying many branches at once. A map file lists rules, first
// match wins:
//
//   {"version": 1, "branches": [
//     {"branch": "wave-{wave}/{agent}"},
//     {"branch": "agents/*/{agent}", "wave": 3},
//     {"branch": "fix-login", "wave": 3, "agent": "alice", "clone": "c-1a2b3c4d5e6f"}
//   ]}
//
// In `branch`, `{wave}` matches a wave number, `{agent}` an agent id, `{clone}` a clone id, `*` any run of
// characters other than `/`; everything else is literal. A rule must yield a wave and an agent, from its
// placeholders or its fields (not both for the same thing).
import { AGENT_ID_PATTERN, isAgentId } from '../plan/agentId';
import { isWaveNumber } from '../plan/declarationPaths';
import { CLONE_ID_PATTERN, isCloneId } from './claims';

export const BRANCH_MAP_VERSION = 1;

/** One rule of the map. */
export interface BranchRule {
  /** The branch template as written. */
  branch: string;
  wave?: number;
  agent?: string;
  clone?: string;
  /** The template compiled. */
  pattern: RegExp;
}

/** The agent (and wave, and optionally clone) a branch name maps to. */
export interface BranchAgent {
  wave: number;
  agent: string;
  clone?: string;
  /**
   * Where `clone` comes from: the rule's own `"clone"` field (the map's author chose it), or the branch name
   * through `{clone}` (whoever named the branch chose it).
   */
  cloneFrom?: 'rule' | 'branch';
  /** The rule that matched (its template). */
  rule: string;
}

/** A map file that cannot be used; `message` says what and where. */
export class BranchMapError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BranchMapError';
  }
}

const PLACEHOLDERS: Record<string, string> = {
  wave: '(?<wave>[1-9][0-9]{0,8})',
  agent: `(?<agent>${AGENT_ID_PATTERN.source.replace(/^\^|\$$/g, '')})`,
  clone: `(?<clone>${CLONE_ID_PATTERN.source.replace(/^\^|\$$/g, '')})`,
};

function compileTemplate(template: string, where: string): { pattern: RegExp; names: Set<string> } {
  let source = '';
  const names = new Set<string>();
  for (const part of template.split(/(\{[a-z]+\}|\*)/)) {
    if (part === '') continue;
    if (part === '*') source += '[^/]*';
    else if (/^\{[a-z]+\}$/.test(part)) {
      const name = part.slice(1, -1);
      const group = PLACEHOLDERS[name];
      if (group === undefined) throw new BranchMapError(`${where}: unknown placeholder ${part} (use {wave}, {agent} or {clone})`);
      if (names.has(name)) throw new BranchMapError(`${where}: ${part} appears twice`);
      names.add(name);
      source += group;
    } else source += part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  }
  return { pattern: new RegExp(`^${source}$`), names };
}

/** Parses and checks a map file's JSON. Throws BranchMapError naming the rule at fault. */
export function parseBranchMap(value: unknown): BranchRule[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new BranchMapError('the branch map must be a JSON object {"version": 1, "branches": [...]}');
  }
  const doc = value as Record<string, unknown>;
  if (doc.version !== BRANCH_MAP_VERSION) throw new BranchMapError(`the branch map's "version" must be ${BRANCH_MAP_VERSION}`);
  if (!Array.isArray(doc.branches) || doc.branches.length === 0) throw new BranchMapError('the branch map\'s "branches" must be a non-empty array of rules');
  return doc.branches.map((raw: unknown, index) => {
    const where = `rule #${index + 1}`;
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new BranchMapError(`${where} is not an object`);
    const rule = raw as Record<string, unknown>;
    if (typeof rule.branch !== 'string' || rule.branch.trim() === '') throw new BranchMapError(`${where} has no "branch" template`);
    const { pattern, names } = compileTemplate(rule.branch, `${where} (${JSON.stringify(rule.branch)})`);
    if (rule.wave !== undefined && !isWaveNumber(rule.wave)) throw new BranchMapError(`${where}: "wave" must be a positive integer`);
    if (rule.agent !== undefined && !isAgentId(rule.agent)) throw new BranchMapError(`${where}: "agent" is not an agent id`);
    if (rule.clone !== undefined && !isCloneId(rule.clone)) throw new BranchMapError(`${where}: "clone" is not a clone id`);
    for (const name of ['wave', 'agent', 'clone'] as const) {
      if (names.has(name) && rule[name] !== undefined) throw new BranchMapError(`${where} gives "${name}" both in the template and as a field`);
    }
    if (!names.has('wave') && rule.wave === undefined) throw new BranchMapError(`${where} yields no wave: add {wave} to the template or a "wave" field`);
    if (!names.has('agent') && rule.agent === undefined) throw new BranchMapError(`${where} yields no agent: add {agent} to the template or an "agent" field`);
    return {
      branch: rule.branch,
      pattern,
      ...(rule.wave !== undefined ? { wave: rule.wave as number } : {}),
      ...(rule.agent !== undefined ? { agent: rule.agent as string } : {}),
      ...(rule.clone !== undefined ? { clone: rule.clone as string } : {}),
    };
  });
}

/** The agent a branch name maps to under the first matching rule, or undefined. */
export function agentForBranch(rules: readonly BranchRule[], branch: string): BranchAgent | undefined {
  for (const rule of rules) {
    const match = rule.pattern.exec(branch);
    if (match === null) continue;
    const groups = match.groups ?? {};
    const wave = rule.wave ?? Number(groups.wave);
    const agent = rule.agent ?? groups.agent;
    const clone = rule.clone ?? groups.clone;
    if (!isWaveNumber(wave) || agent === undefined) continue;
    return { wave, agent, ...(clone !== undefined ? { clone, cloneFrom: rule.clone !== undefined ? 'rule' : 'branch' } : {}), rule: rule.branch };
  }
  return undefined;
}

/** A branch name as a person calls it: without `refs/heads/` or `refs/remotes/<remote>/`. */
export function branchNameOf(ref: string, remote: string): string {
  if (ref.startsWith('refs/heads/')) return ref.slice('refs/heads/'.length);
  const remotePrefix = `refs/remotes/${remote}/`;
  if (ref.startsWith(remotePrefix)) return ref.slice(remotePrefix.length);
  return ref;
}
