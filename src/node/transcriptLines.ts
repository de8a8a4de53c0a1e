// Reading Claude Code transcripts (JSONL) for the dispatch guard without ever holding a whole file:
// fixed-size chunks, one line at a time, and a size check before the first byte is read (a transcript
// over the limit is no evidence, src/planner/dispatch/liveness.ts). Synchronous: the hook has nothing
// else to do meanwhile, and a synchronous read keeps its exit path simple.
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { leadingUserTexts, livenessWithoutTranscript, MAX_TRANSCRIPT_BYTES, TranscriptProbe } from '../planner/dispatch/liveness';
import type { Liveness, ProbeTarget } from '../planner/dispatch/liveness';

const CHUNK_BYTES = 1024 * 1024;

export type LineRead =
  | { readonly kind: 'read'; readonly bytes: number; readonly lines: number; readonly longestLine: number }
  | { readonly kind: 'missing' }
  | { readonly kind: 'too-large'; readonly bytes: number }
  | { readonly kind: 'failed'; readonly message: string };

function errorCode(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null ? (error as { code?: string }).code : undefined;
}

/**
 * Calls `onLine` for every line of the file (without its line end), in order, with its 1-based number;
 * `onLine` returning false stops the read. Reads at most `maxBytes` (a larger file is not read at all).
 */
export function forEachLine(path: string, onLine: (line: string, seq: number) => boolean | void, options: { maxBytes?: number; stopAfterBytes?: number } = {}): LineRead {
  const maxBytes = options.maxBytes ?? MAX_TRANSCRIPT_BYTES;
  let fd: number;
  try {
    // O_NONBLOCK: a FIFO opens at once (and is then refused as not a regular file) instead of waiting for a
    // writer; a hung hook is an allow that no event records. Reads of a regular file are unaffected.
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    const code = errorCode(error);
    return code === 'ENOENT' || code === 'ENOTDIR' ? { kind: 'missing' } : { kind: 'failed', message: (error as Error).message };
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) return { kind: 'failed', message: `${path} is not a regular file` };
    if (stats.size > maxBytes) return { kind: 'too-large', bytes: stats.size };
    // A transcript grows while it is read: never read past what the check allowed.
    const limit = Math.min(maxBytes, options.stopAfterBytes ?? maxBytes);
    const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
    const decoder = new StringDecoder('utf8');
    let carry = '';
    let total = 0;
    let seq = 0;
    let longest = 0;
    let stopped = false;
    const emit = (line: string): boolean => {
      seq += 1;
      longest = Math.max(longest, line.length);
      return onLine(line.endsWith('\r') ? line.slice(0, -1) : line, seq) !== false;
    };
    while (!stopped && total < limit) {
      const read = readSync(fd, buffer, 0, Math.min(CHUNK_BYTES, limit - total), null);
      if (read === 0) break;
      total += read;
      const text = carry + decoder.write(buffer.subarray(0, read));
      let start = 0;
      for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', start)) {
        if (!emit(text.slice(start, end))) {
          stopped = true;
          break;
        }
        start = end + 1;
      }
      carry = stopped ? '' : text.slice(start);
    }
    const rest = carry + decoder.end();
    // A last line without a line end is still a line (it may be half written; the parser skips it then).
    if (!stopped && rest !== '') emit(rest);
    return { kind: 'read', bytes: total, lines: seq, longestLine: longest };
  } catch (error) {
    return { kind: 'failed', message: (error as Error).message };
  } finally {
    closeSync(fd);
  }
}

/** What probing the transcript found, and how the read went (for the event). */
export interface ProbeOutcome {
  readonly liveness: Map<string, Liveness>;
  readonly probe: 'read' | 'no-transcript' | 'too-large' | 'failed';
}

/** Streams the session transcript once and answers for every target. Never throws. */
export function probeTranscript(transcriptPath: string | undefined, targets: readonly ProbeTarget[], excludeUseId: string | undefined, now: number): ProbeOutcome {
  if (transcriptPath === undefined || !isAbsolute(transcriptPath)) {
    return { liveness: livenessWithoutTranscript(targets, 'no-transcript', now), probe: 'no-transcript' };
  }
  try {
    const probe = new TranscriptProbe(targets, excludeUseId);
    const read = forEachLine(transcriptPath, (line, seq) => {
      if (probe.wants(line)) probe.accept(line, seq);
    });
    if (read.kind === 'missing') return { liveness: livenessWithoutTranscript(targets, 'no-transcript', now), probe: 'no-transcript' };
    if (read.kind === 'too-large') return { liveness: livenessWithoutTranscript(targets, 'transcript-too-large', now), probe: 'too-large' };
    if (read.kind === 'failed') return { liveness: livenessWithoutTranscript(targets, 'probe-failed', now), probe: 'failed' };
    return { liveness: probe.result(now), probe: 'read' };
  } catch {
    return { liveness: livenessWithoutTranscript(targets, 'probe-failed', now), probe: 'failed' };
  }
}

/** How much of a subagent's own transcript is read to find its prompt. */
export const SUBAGENT_HEAD_BYTES = 1024 * 1024;

/**
 * The user texts that open the first of `paths` that exists (see leadingUserTexts), or undefined when
 * none can be read. Reads at most SUBAGENT_HEAD_BYTES.
 */
export function readLeadingUserTexts(paths: readonly string[], limit = 64): string[] | undefined {
  for (const path of paths) {
    const lines: string[] = [];
    const read = forEachLine(
      path,
      (line) => {
        lines.push(line);
        return lines.length < 4 * limit;
      },
      // Only the head is read, so the size of the whole file does not matter.
      { maxBytes: Number.MAX_SAFE_INTEGER, stopAfterBytes: SUBAGENT_HEAD_BYTES },
    );
    if (read.kind === 'missing') continue;
    if (read.kind !== 'read') return undefined;
    return leadingUserTexts(lines, limit);
  }
  return undefined;
}
