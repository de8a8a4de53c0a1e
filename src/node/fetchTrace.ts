// Knowing, while `git fetch` still runs, that the objects it brings are stored, and which commit it is bringing.
//
// After it has stored what it fetched, git spends a good part of a small fetch on its tail: it checks that
// the new objects connect (a `git rev-list`), moves the ref, and runs `git maintenance run --auto`. Those
// steps change no object, so a reader that knows the commit being fetched can read it while they run. git
// tells both through its trace (GIT_TRACE and GIT_TRACE_PACKET, written to a file of ours): the remote's
// answer to the ref listing names the commit (`packet: fetch< <id> <ref>`), and the first process the fetch
// starts after the one that stores the pack (`run_command: ... unpack-objects` or `index-pack`) is started
// once that one has exited.
//
// Nothing here is trusted: it only says which commit to read ahead and when. Every object read is proven by
// its hash, and the commit is used only once the fetch has ended with success and moved this clone's copy of
// the ref to exactly it (src/node/planRefGit.ts, fetchAhead); anything else is read again the usual way.
//
// A file, not a pipe: every process git starts inherits where the trace goes, and one may outlive the fetch
// (`git maintenance run --auto` can leave `git gc` running in the background). Holding a pipe's end, it
// would keep the fetch's end from being seen until it exits, and once this process is gone its next trace
// line would kill it (SIGPIPE). Into a file it writes harmlessly, and not at all once the file's directory
// is removed (git then gives up tracing).
import { closeSync, constants, mkdtempSync, openSync, readSync, rmSync, watch } from 'node:fs';
import type { FSWatcher } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';

/**
 * The most trace read before the reader gives up: a fetch of the plan ref over protocol v2 traces some
 * 15 KB; far more means a conversation this reading was not made for, not worth this thread's time.
 */
export const MAX_TRACE_CHARACTERS = 1024 * 1024;

/** What the trace of one fetch has told so far. */
export class FetchTraceReader {
  private advertised: string | undefined;
  private storing = false;
  private storedTip: string | undefined;
  private gaveUp = false;
  private sawFetchPacket = false;
  private pending = '';
  private read = 0;

  constructor(private readonly ref: string) {}

  /** The commit the remote named for the ref, once the fetch has stored the objects it brought; else undefined. */
  get stored(): string | undefined {
    return this.storedTip;
  }

  /**
   * Takes more of the trace; true once the reader has decided: `stored` is known, or it never will be from
   * this trace (what follows is then not looked at). It gives up on a remote that does not answer in
   * protocol v2, whose first answer lists every ref it has (the fetch's own first answer is then not
   * `version 2`), and on more than MAX_TRACE_CHARACTERS of trace.
   */
  take(chunk: string): boolean {
    if (this.decided()) return true;
    this.read += chunk.length;
    if (this.read > MAX_TRACE_CHARACTERS) this.gaveUp = true;
    const lines = (this.pending + chunk).split('\n');
    this.pending = lines.pop() ?? '';
    for (const line of lines) {
      if (this.decided()) break;
      this.line(line);
    }
    return this.decided();
  }

  private decided(): boolean {
    return this.storedTip !== undefined || this.gaveUp;
  }

  private line(line: string): void {
    const packet = / packet: +fetch< (.*)$/.exec(line);
    if (packet !== null) {
      const said = packet[1] as string;
      if (!this.sawFetchPacket) {
        this.sawFetchPacket = true;
        if (said !== 'version 2') this.gaveUp = true;
        return;
      }
      const listed = /^([0-9a-f]{40}|[0-9a-f]{64}) (\S+)$/.exec(said);
      if (listed !== null && listed[2] === this.ref && this.advertised === undefined) this.advertised = listed[1];
      return;
    }
    const command = / trace: run_command: (.*)$/.exec(line);
    if (command === null) return;
    if (this.storing) {
      this.storedTip = this.advertised;
      return;
    }
    if (this.advertised !== undefined && /(?:^|[\s'])git (?:unpack-objects|index-pack)(?:\s|'|$)/.test(command[1] as string)) this.storing = true;
  }
}

/** Whether the user traces git already (GIT_TRACE or GIT_TRACE_PACKET set): their trace is then left as it is, and not read. */
export function userTracesGit(env: NodeJS.ProcessEnv): boolean {
  return env.GIT_TRACE !== undefined || env.GIT_TRACE_PACKET !== undefined;
}

/** A fetch's trace, followed as git writes it (followFetchTrace). */
export interface FollowedTrace {
  /** The variables to start the fetch with. */
  readonly environment: NodeJS.ProcessEnv;
  /** The commit the fetch brings, once its objects are stored; undefined once that will not be known (or `end` came first). */
  readonly stored: Promise<string | undefined>;
  /** Reads what is left, stops following and removes the file: called once the fetch has ended. */
  end(): void;
}

/**
 * A trace file for one fetch of `ref`, in a new directory of the system's temporary directory, read as it
 * grows (a watch on the directory); undefined when the user traces git already or nothing can be set up.
 */
export function followFetchTrace(ref: string, env: NodeJS.ProcessEnv = process.env): FollowedTrace | undefined {
  if (userTracesGit(env)) return undefined;
  let directory: string;
  try {
    directory = mkdtempSync(join(tmpdir(), 'wave-scope-fetch-'));
  } catch {
    return undefined;
  }
  const path = join(directory, 'trace');
  const reader = new FetchTraceReader(ref);
  const text = new StringDecoder('utf8');
  const chunk = Buffer.allocUnsafe(64 * 1024);
  let descriptor: number | undefined;
  let offset = 0;
  let decided = false;
  let settle: (tip: string | undefined) => void = () => undefined;
  const stored = new Promise<string | undefined>((resolve) => (settle = resolve));
  let watcher: FSWatcher | undefined;
  const decide = () => {
    if (decided) return;
    decided = true;
    settle(reader.stored);
    watcher?.close();
  };
  const readMore = () => {
    if (decided) return;
    try {
      // git creates the file with its first line; never through a link.
      descriptor ??= openSync(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
      for (let count = readSync(descriptor, chunk, 0, chunk.length, offset); count > 0; count = readSync(descriptor, chunk, 0, chunk.length, offset)) {
        offset += count;
        if (reader.take(text.write(chunk.subarray(0, count)))) return decide();
      }
    } catch {
      // Not there yet (read at the next change), or unreadable (then nothing is read ahead).
    }
  };
  try {
    watcher = watch(directory, readMore);
    watcher.on('error', decide);
  } catch {
    rmSync(directory, { recursive: true, force: true });
    return undefined;
  }
  return {
    environment: { GIT_TRACE: path, GIT_TRACE_PACKET: path },
    stored,
    end() {
      readMore();
      decide();
      try {
        if (descriptor !== undefined) closeSync(descriptor);
        descriptor = undefined;
        rmSync(directory, { recursive: true, force: true });
      } catch {
        // Left in the temporary directory: a few kilobytes nothing reads.
      }
    },
  };
}
