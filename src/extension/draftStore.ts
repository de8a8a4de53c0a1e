// Where the extension keeps a folder's planner draft between sessions and window reloads, and what the
// planner remembers that the files on disk do not say (lane colours, the roles of inactive waves).
// The record is written at once, atomically, to the extension's workspace storage folder (a browser
// VS Code persists workspaceState late, and may lose it in a reload), with workspaceState as the
// fallback. This is the host's own storage format, not a protocol message.
import { createHash } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import * as v from 'valibot';
import type * as vscode from 'vscode';
// The one writer that is not src/node/atomicFile.ts (its header says why): asynchronous, off the host's thread.
import writeFileAtomic from 'write-file-atomic';
import type { PlanDraft } from '../protocol/plannerProtocol';
import { PlanDraftSchema } from '../protocol/plannerProtocol';

/** A draft as the extension stores it (`drafts/<hash of the folder URI>.json`). */
export const StoredDraftRecordSchema = v.object({
  /** The draft, versioned by its own `version`. */
  draft: PlanDraftSchema,
  /** Whether it had unsaved changes; a clean record means "the plan on disk is current". */
  dirty: v.boolean(),
  /** When the webview changed it (ms since the epoch); the newer of two copies wins. */
  updatedAt: v.number(),
  /** The plan on disk the draft was edited from (see KeptDraft.base); older records lack it. */
  base: v.optional(PlanDraftSchema),
});
export type StoredDraftRecord = v.InferOutput<typeof StoredDraftRecordSchema>;

const DRAFT_KEY = 'waveScope.draft:';
const COLORS_KEY = 'waveScope.colors:';
const ROLES_KEY = 'waveScope.roles:';

/** Lane colours by agent id and roles by wave number, remembered across saves. */
export interface RememberedLook {
  colors: Record<string, string>;
  roles: Record<string, string>;
}

/** The stored draft of one workspace folder. */
export class DraftStore {
  private record: StoredDraftRecord | undefined;
  private loaded: Promise<void> | undefined;
  /** Writes run one after another, so the file always ends with the newest record. */
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly folderUri: vscode.Uri,
    private readonly state: vscode.Memento,
    private readonly storage: vscode.Uri | undefined,
    private readonly onWriteFailed: (error: unknown) => void,
  ) {}

  /** The file of this folder's record in the extension's own workspace storage, when it is on disk. */
  get file(): string | undefined {
    if (!this.storage || this.storage.scheme !== 'file') return undefined;
    const name = createHash('sha256').update(this.folderUri.toString()).digest('hex').slice(0, 32);
    return join(this.storage.fsPath, 'drafts', `${name}.json`);
  }

  /** The newest record kept for this folder (the file first: it is written at once, workspaceState lags). */
  async read(): Promise<StoredDraftRecord | undefined> {
    this.loaded ??= this.load();
    await this.loaded;
    return this.record;
  }

  /** The unsaved draft kept for this folder, if any. */
  async unsavedDraft(): Promise<PlanDraft | undefined> {
    const record = await this.read();
    return record?.dirty ? record.draft : undefined;
  }

  /** Keeps the record (a clean one says "disk is current") and remembers its colours and roles. */
  async write(record: StoredDraftRecord): Promise<void> {
    this.record = record;
    this.loaded ??= Promise.resolve();
    const file = this.file;
    const text = JSON.stringify(record);
    const written = this.writing.then(async () => {
      if (!file) return;
      try {
        await mkdir(dirname(file), { recursive: true });
        await writeFileAtomic(file, text);
      } catch (error) {
        // workspaceState below still has it.
        this.onWriteFailed(error);
      }
    });
    this.writing = written;
    const key = this.folderUri.toString();
    const colors = this.look().colors;
    for (const wave of record.draft.waves) for (const agent of wave.agents) colors[agent.id] = agent.color;
    // Only the wave the manifest names keeps its role on disk; the others' roles live here.
    const roles = this.look().roles;
    for (const wave of record.draft.waves) roles[String(wave.wave)] = wave.role;
    await Promise.all([
      written,
      this.state.update(DRAFT_KEY + key, record),
      this.state.update(COLORS_KEY + key, colors),
      this.state.update(ROLES_KEY + key, roles),
    ]);
  }

  /** What the planner remembered of lane colours and wave roles. */
  look(): RememberedLook {
    const key = this.folderUri.toString();
    return {
      colors: { ...(this.state.get<Record<string, string>>(COLORS_KEY + key) ?? {}) },
      roles: { ...(this.state.get<Record<string, string>>(ROLES_KEY + key) ?? {}) },
    };
  }

  private async load(): Promise<void> {
    const file = this.file;
    if (file) {
      try {
        const parsed = v.safeParse(StoredDraftRecordSchema, JSON.parse(await readFile(file, 'utf8')));
        if (parsed.success) {
          this.record ??= parsed.output;
          return;
        }
      } catch {
        // Missing or unreadable: fall back to workspaceState.
      }
    }
    const stored = v.safeParse(StoredDraftRecordSchema, this.state.get<unknown>(DRAFT_KEY + this.folderUri.toString()));
    if (stored.success) this.record ??= stored.output;
  }
}
