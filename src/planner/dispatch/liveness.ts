// Whether an agent recorded in the ledger is still in flight, read from the session's transcript
// (Claude Code's JSONL at the payload's `transcript_path`). Reference document 002, section 5: a
// completion needs positive evidence, an asynchronous launch receipt is not one, a `<task-notification>`
// with a terminal status is, a `SendMessage` to the agent re-opens it, the dispatch's own `tool_use_id`
// decides before its description, and without evidence an agent is in flight until a 30-minute TTL.
//
// Pure: the transcript reaches `TranscriptProbe` one line at a time (src/node/transcriptLines.ts streams
// the file), and `wants` lets the reader skip lines that cannot matter without parsing them.
import { foldCase } from '../scope/scopeEntry';

/** Without evidence, an agent stops counting as in flight this long after its dispatch (or last resume). */
export const IN_FLIGHT_TTL_MS = 30 * 60 * 1000;

/** A transcript larger than this is not read at all: it is no evidence (never a completion). */
export const MAX_TRANSCRIPT_BYTES = 256 * 1024 * 1024;

/** The dispatch tool's names (`Task` in older Claude Code versions). */
export const DISPATCH_TOOL_NAMES: readonly string[] = ['Agent', 'Task'];

/** Notification statuses that end a run. */
const TERMINAL_STATUSES = new Set(['completed', 'failed', 'killed']);

/** What the probe found for one record. The first group is a completion; the rest leave it in flight. */
export type LivenessEvidence =
  /** The dispatch's own result carries the synchronous report's `<usage>` / `total_tokens` trailer. */
  | 'sync-result'
  /** The dispatch's own result is an error (`is_error`). */
  | 'error-result'
  /** The dispatch's own result begins "This agent's report was delivered". */
  | 'report-delivered'
  /** A `<task-notification>` with a terminal status (`completed`, `failed`, `killed`) after the last activation. */
  | 'notification'
  /** The dispatch (or its resume) has no result yet: the call is running. In flight, not bounded by the TTL. */
  | 'awaiting-result'
  /** The asynchronous launch receipt ("Async agent launched successfully"), and nothing after it. */
  | 'launch-receipt'
  /** A forked dispatch's receipt ("Fork started"), and nothing after it. */
  | 'fork-started'
  /** A result in no form the census found on completions. */
  | 'unrecognised-result'
  /** Resumed by `SendMessage` (or the old `resume` input) and not finished since. */
  | 'resumed'
  /** The transcript carries no record of this dispatch. */
  | 'not-in-transcript'
  /** No transcript: the payload named none, or it cannot be read. */
  | 'no-transcript'
  /** The transcript is larger than MAX_TRANSCRIPT_BYTES. */
  | 'transcript-too-large'
  /** Reading or parsing the transcript failed. */
  | 'probe-failed'
  /** The hook ran out of probe rounds before it could read the transcript for this record. */
  | 'probe-unavailable';

/** Evidence that a run finished. */
export const COMPLETION_EVIDENCE: ReadonlySet<LivenessEvidence> = new Set(['sync-result', 'error-result', 'report-delivered', 'notification']);

export interface Liveness {
  /** True while the agent may still be writing. */
  readonly inFlight: boolean;
  readonly evidence: LivenessEvidence;
  /** True when the agent counts as finished only because the TTL ran out without evidence. */
  readonly ttlExpired: boolean;
  /** When the run (or its last resume) started, as far as is known (ISO 8601). */
  readonly since: string;
}

/** One ledger record to look up. */
export interface ProbeTarget {
  /** Identifies the record in the answer (recordKey). */
  readonly key: string;
  /** Its `tool_use_id`; looked up first. */
  readonly useId?: string;
  /** Its description; the fallback when it has no id (only when non-empty). */
  readonly desc: string;
  /** When it was recorded (ISO 8601). */
  readonly at: string;
}

type ResultKind = 'sync-result' | 'error-result' | 'report-delivered' | 'launch-receipt' | 'fork-started' | 'unrecognised-result';

interface Activation {
  readonly id: string;
  readonly seq: number;
  readonly time?: string;
}

interface Track {
  readonly useId: string;
  readonly desc: string;
  readonly seq: number;
  readonly time?: string;
  readonly name?: string;
  result?: { readonly kind: ResultKind; readonly seq: number };
  readonly agentIds: Set<string>;
}

interface PendingActivation extends Activation {
  /** The task id or agent name the message is addressed to. */
  readonly to: string;
}

interface Notification {
  readonly toolUseId?: string;
  readonly taskId?: string;
  readonly status: string;
  readonly seq: number;
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The text of a message content: a string, or its text blocks joined. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((block): block is Json => isObject(block) && block.type === 'text' && typeof block.text === 'string')
    .map((block) => block.text as string)
    .join('\n');
}

const AGENT_ID_IN_RESULT = /\bagentId:\s*([A-Za-z0-9][A-Za-z0-9@._-]*)/;
const NOTIFICATION_OPEN = '<task-notification>';
const NOTIFICATION_CLOSE = '</task-notification>';

// The two readers below find tags with indexOf, in time linear in the text. The regexes they replace
// (`<task-notification>([\s\S]*?)</task-notification>`, `<status>\s*([^<]*?)\s*</status>`) scanned to the end
// again from every unclosed opening tag and every split of a run of blanks: quadratic in a transcript line,
// which a subagent fills through the report the coordinator's transcript quotes, and a hook that runs past
// its agent CLI's timeout lets the dispatch through unchecked.

/** The body of each `<task-notification>` in `text`: from an opening tag to the first closing tag after it. */
export function notificationBodies(text: string): string[] {
  const bodies: string[] = [];
  for (let open = text.indexOf(NOTIFICATION_OPEN); open !== -1; ) {
    const start = open + NOTIFICATION_OPEN.length;
    const close = text.indexOf(NOTIFICATION_CLOSE, start);
    if (close === -1) break;
    bodies.push(text.slice(start, close));
    open = text.indexOf(NOTIFICATION_OPEN, close + NOTIFICATION_CLOSE.length);
  }
  return bodies;
}

/** The text of the first `<name>…</name>` in `body` that holds no `<`, without the blanks around it; undefined when there is none, or it is blank. */
export function tagText(body: string, name: string): string | undefined {
  const open = `<${name}>`;
  const close = `</${name}>`;
  for (let at = body.indexOf(open); at !== -1; at = body.indexOf(open, at + 1)) {
    const start = at + open.length;
    const next = body.indexOf('<', start);
    if (next === -1) return undefined;
    if (body.startsWith(close, next)) {
      const text = body.slice(start, next).trim();
      return text === '' ? undefined : text;
    }
  }
  return undefined;
}

function classifyResult(block: Json, text: string): ResultKind {
  if (block.is_error === true) return 'error-result';
  if (text.includes('<usage>') || /\btotal_tokens\b/.test(text)) return 'sync-result';
  if (text.trimStart().startsWith("This agent's report was delivered")) return 'report-delivered';
  if (text.includes('Async agent launched successfully')) return 'launch-receipt';
  if (text.trimStart().startsWith('Fork started')) return 'fork-started';
  return 'unrecognised-result';
}

/** A `SendMessage` result that says it reached nobody: it re-opens nothing. */
function sendFailed(block: Json, text: string): boolean {
  return block.is_error === true || /"success"\s*:\s*false/.test(text);
}

/**
 * Reads a transcript line by line and answers, for each target, whether its agent is still in flight.
 * Lines it cannot parse are skipped (a transcript being written may end in half a line).
 */
export class TranscriptProbe {
  private readonly byUseId = new Map<string, ProbeTarget>();
  private readonly byDesc = new Map<string, ProbeTarget[]>();
  private readonly tracks = new Map<string, Track>();
  private readonly sendIds = new Map<string, PendingActivation>();
  private readonly voided = new Set<string>();
  private readonly notifications: Notification[] = [];
  private needles: RegExp;
  private interestChanged = false;
  /** Lines handed to `accept` that were not JSON. */
  malformedLines = 0;

  constructor(
    private readonly targets: readonly ProbeTarget[],
    /** The current dispatch's own id, never taken as an earlier record's dispatch. */
    private readonly excludeUseId?: string,
  ) {
    for (const target of targets) {
      if (target.useId !== undefined) this.byUseId.set(target.useId, target);
      else if (target.desc !== '') {
        const list = this.byDesc.get(target.desc) ?? [];
        list.push(target);
        this.byDesc.set(target.desc, list);
      }
    }
    this.needles = this.buildNeedles();
  }

  private buildNeedles(): RegExp {
    const words = ['<task-notification>', 'SendMessage', '"resume"', ...this.byUseId.keys(), ...this.tracks.keys(), ...this.sendIds.keys()];
    if (this.byDesc.size > 0) words.push('"description"');
    return new RegExp([...new Set(words)].map(escapeRegExp).join('|'));
  }

  /** Whether a raw line can matter (a cheap substring test; `accept` only what passes). */
  wants(line: string): boolean {
    if (this.interestChanged) {
      this.needles = this.buildNeedles();
      this.interestChanged = false;
    }
    return this.needles.test(line);
  }

  /** Feeds one line (1-based `seq` orders events). */
  accept(line: string, seq: number): void {
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch {
      this.malformedLines += 1;
      return;
    }
    if (!isObject(record)) return;
    const message = isObject(record.message) ? record.message : undefined;
    const time = typeof record.timestamp === 'string' ? record.timestamp : undefined;
    if (record.type === 'assistant') {
      if (message !== undefined && Array.isArray(message.content)) {
        for (const block of message.content) if (isObject(block) && block.type === 'tool_use') this.toolUse(block, seq, time);
      }
      return;
    }
    if (record.type === 'user' && message !== undefined && Array.isArray(message.content)) {
      for (const block of message.content) if (isObject(block) && block.type === 'tool_result') this.toolResult(block, record, seq);
    }
    // Harness-written notifications: a user record's own text, or a queued-command record. Never the text
    // of a tool result (a file an agent read cannot finish anything) nor anything an assistant wrote.
    const texts = [record.type === 'user' && message !== undefined ? textOf(message.content) : '', record.type !== 'assistant' && typeof record.content === 'string' ? record.content : ''];
    for (const text of texts) if (text.includes('<task-notification>')) this.notification(text, seq);
  }

  private toolUse(block: Json, seq: number, time: string | undefined): void {
    const id = typeof block.id === 'string' ? block.id : undefined;
    const input = isObject(block.input) ? block.input : {};
    if (id === undefined) return;
    if (block.name === 'SendMessage' && typeof input.to === 'string' && input.to !== '') {
      this.sendIds.set(id, { id, seq, time, to: input.to });
      this.interestChanged = true;
      return;
    }
    if (!DISPATCH_TOOL_NAMES.includes(block.name as string)) return;
    // The old way to resume an agent: a dispatch naming it in `resume`.
    if (typeof input.resume === 'string' && input.resume !== '') {
      this.sendIds.set(id, { id, seq, time, to: input.resume });
      this.interestChanged = true;
    }
    const desc = typeof input.description === 'string' ? input.description : '';
    const tracked = this.byUseId.has(id) || (id !== this.excludeUseId && this.byDesc.has(desc));
    if (!tracked || this.tracks.has(id)) return;
    this.tracks.set(id, {
      useId: id,
      desc,
      seq,
      ...(time !== undefined ? { time } : {}),
      ...(typeof input.name === 'string' && input.name !== '' ? { name: input.name } : {}),
      agentIds: new Set(),
    });
    this.interestChanged = true;
  }

  private toolResult(block: Json, record: Json, seq: number): void {
    const id = typeof block.tool_use_id === 'string' ? block.tool_use_id : undefined;
    if (id === undefined) return;
    const text = textOf(block.content);
    const send = this.sendIds.get(id);
    if (send !== undefined && sendFailed(block, text)) this.voided.add(id);
    const track = this.tracks.get(id);
    if (track === undefined) return;
    const agentId = AGENT_ID_IN_RESULT.exec(text)?.[1];
    if (agentId !== undefined) track.agentIds.add(agentId);
    const structured = isObject(record.toolUseResult) ? record.toolUseResult.agentId : undefined;
    if (typeof structured === 'string' && structured !== '') track.agentIds.add(structured);
    if (track.result === undefined) track.result = { kind: classifyResult(block, text), seq };
  }

  private notification(text: string, seq: number): void {
    for (const body of notificationBodies(text)) {
      const status = tagText(body, 'status');
      if (status === undefined) continue;
      const toolUseId = tagText(body, 'tool-use-id');
      const taskId = tagText(body, 'task-id');
      this.notifications.push({ status: foldCase(status), seq, ...(toolUseId !== undefined ? { toolUseId } : {}), ...(taskId !== undefined ? { taskId } : {}) });
    }
  }

  /** Every activation of a track: the dispatch itself, then each resume addressed to it (oldest first). */
  private activations(track: Track): Activation[] {
    const list: Activation[] = [{ id: track.useId, seq: track.seq, ...(track.time !== undefined ? { time: track.time } : {}) }];
    for (const send of this.sendIds.values()) {
      if (this.voided.has(send.id) || send.seq <= track.seq) continue;
      if (track.agentIds.has(send.to) || track.name === send.to) list.push(send);
    }
    return list.sort((a, b) => a.seq - b.seq);
  }

  private trackLiveness(track: Track, target: ProbeTarget, now: number): Liveness {
    const activations = this.activations(track);
    const last = activations[activations.length - 1] as Activation;
    const ids = new Set(activations.map((activation) => activation.id));
    const since = laterTime(target.at, last.time);
    const result = track.result;
    if (result !== undefined && result.seq > last.seq && COMPLETION_EVIDENCE.has(result.kind as LivenessEvidence)) {
      return { inFlight: false, evidence: result.kind as LivenessEvidence, ttlExpired: false, since };
    }
    const closed = this.notifications.some(
      (note) =>
        note.seq > last.seq &&
        TERMINAL_STATUSES.has(note.status) &&
        ((note.toolUseId !== undefined && ids.has(note.toolUseId)) || (note.taskId !== undefined && track.agentIds.has(note.taskId))),
    );
    if (closed) return { inFlight: false, evidence: 'notification', ttlExpired: false, since };
    if (last.id === track.useId && result === undefined) return { inFlight: true, evidence: 'awaiting-result', ttlExpired: false, since };
    const evidence: LivenessEvidence = last.id !== track.useId ? 'resumed' : (result?.kind as LivenessEvidence);
    return withTtl(evidence, since, now);
  }

  /** The liveness of every target, by key. */
  result(now: number): Map<string, Liveness> {
    const answers = new Map<string, Liveness>();
    for (const target of this.targets) {
      const tracks =
        target.useId !== undefined
          ? [this.tracks.get(target.useId)].filter((track): track is Track => track !== undefined)
          : [...this.tracks.values()].filter((track) => track.desc === target.desc && target.desc !== '' && !this.byUseId.has(track.useId));
      if (tracks.length === 0) {
        answers.set(target.key, withTtl('not-in-transcript', target.at, now));
        continue;
      }
      // A description counts as finished only when every dispatch of it is.
      const each = tracks.map((track) => this.trackLiveness(track, target, now));
      answers.set(target.key, each.find((liveness) => liveness.inFlight) ?? (each[each.length - 1] as Liveness));
    }
    return answers;
  }
}

function laterTime(a: string, b: string | undefined): string {
  if (b === undefined || Number.isNaN(Date.parse(b))) return a;
  return Date.parse(b) > Date.parse(a) ? b : a;
}

/** No evidence: in flight until the TTL, counted from `since`. */
export function withTtl(evidence: LivenessEvidence, since: string, now: number): Liveness {
  const started = Date.parse(since);
  const expired = Number.isNaN(started) || now - started > IN_FLIGHT_TTL_MS;
  return { inFlight: !expired, evidence, ttlExpired: expired, since };
}

/** The answer for every target when the transcript cannot be read at all. */
export function livenessWithoutTranscript(
  targets: readonly ProbeTarget[],
  evidence: 'no-transcript' | 'transcript-too-large' | 'probe-failed' | 'probe-unavailable',
  now: number,
): Map<string, Liveness> {
  return new Map(targets.map((target) => [target.key, withTtl(evidence, target.at, now)]));
}

/**
 * The user texts at the start of a subagent's own transcript (its prompt comes first): each string
 * content, each text block, and the text blocks joined. At most `limit` user records are read.
 */
export function leadingUserTexts(lines: Iterable<string>, limit = 4): string[] {
  const texts: string[] = [];
  let users = 0;
  for (const line of lines) {
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch {
      continue;
    }
    if (!isObject(record) || record.type !== 'user' || !isObject(record.message)) continue;
    const content = record.message.content;
    if (typeof content === 'string') texts.push(content);
    else if (Array.isArray(content)) {
      const blocks = content.filter((block): block is Json => isObject(block) && block.type === 'text' && typeof block.text === 'string');
      for (const block of blocks) texts.push(block.text as string);
      if (blocks.length > 1) texts.push(blocks.map((block) => block.text as string).join('\n'));
    }
    users += 1;
    if (users >= limit) break;
  }
  return texts;
}
