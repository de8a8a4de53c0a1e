// Shared pieces of the sync tests: a published wave, a claim, and an in-memory plan ref that behaves as
// git's does (compare-and-swap on push) and lets a test push "from another clone" between a fetch and a
// push, the way a real race interleaves.
import type { DeclaredRecord } from '../../../src/planner/plan/declarationInput';
import type { WaveManifest } from '../../../src/planner/plan/manifest';
import { union } from '../../../src/planner/scope/scopeUnion';
import { expandTestSiblings } from '../../../src/planner/scope/testSiblings';
import type { Claim, CloneIdentity } from '../../../src/planner/sync/claims';
import type { PlanFiles, WaveToPublish } from '../../../src/planner/sync/planRef';
import type { PlanRefStore } from '../../../src/planner/sync/publish';

export const T0 = Date.parse('2026-12-01T10:42:00.000Z');
export const HOUR = 3_600_000;

export function cloneNamed(id: string): CloneIdentity {
  return { id, name: `host:/work/${id}` };
}

export function manifestFor(wave: number, records: readonly DeclaredRecord[], role = 'implementation', session?: string): WaveManifest {
  return {
    version: 1,
    wave,
    role,
    enforcement: 'strict',
    allowedPaths: expandTestSiblings(union(records), { role }),
    blockedCommands: [],
    ...(session !== undefined ? { session_id: session } : {}),
  };
}

export function waveToPublish(clone: CloneIdentity, wave: number, records: DeclaredRecord[], at = T0, role = 'implementation'): WaveToPublish {
  return {
    info: { clone: clone.id, cloneName: clone.name, wave, publishedAt: new Date(at).toISOString(), session: null, ignoreCase: false, head: null },
    manifest: manifestFor(wave, records, role),
    records,
  };
}

export function claimOf(clone: CloneIdentity, wave: number, at = T0, ttl = 4 * HOUR): Claim {
  const iso = new Date(at).toISOString();
  return { clone: clone.id, cloneName: clone.name, session: null, wave, claimedAt: iso, renewedAt: iso, expiresAt: new Date(at + ttl).toISOString() };
}

/** An in-memory remote plan ref with git's push semantics (the ref moves only if it still is the expected commit). */
export class MemoryPlanRef implements PlanRefStore {
  tip: string | null = null;
  readonly commits = new Map<string, { files: PlanFiles; parent: string | null; message: string }>();
  fetches = 0;
  pushes = 0;
  /** Called once before each push is applied: a test moves the ref here to lose us the race. */
  beforePush: ((attempt: number) => void) | undefined;
  /** When set, every push is refused with this reason (a remote hook, a permission). */
  refuseWith: string | undefined;
  private counter = 0;

  fetch(): string | null {
    this.fetches += 1;
    return this.tip;
  }
  readFiles(commit: string, only?: (path: string) => boolean): PlanFiles {
    const found = this.commits.get(commit);
    if (found === undefined) throw new Error(`no commit ${commit}`);
    return new Map([...found.files].filter(([path]) => only === undefined || only(path)));
  }
  writeCommit(files: PlanFiles, parent: string | null, message: string): string {
    this.counter += 1;
    const id = `c${String(this.counter).padStart(39, '0')}`;
    this.commits.set(id, { files: new Map(files), parent, message });
    return id;
  }
  push(commit: string, expected: string | null): { ok: true } | { ok: false; rejected: string } {
    this.pushes += 1;
    this.beforePush?.(this.pushes);
    if (this.refuseWith !== undefined) return { ok: false, rejected: this.refuseWith };
    if (this.tip !== expected) return { ok: false, rejected: '[rejected] (stale info)' };
    this.tip = commit;
    return { ok: true };
  }
  /** The files at the tip. */
  files(): PlanFiles {
    return this.tip === null ? new Map() : this.readFiles(this.tip);
  }
}
