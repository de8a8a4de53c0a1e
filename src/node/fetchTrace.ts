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
// line would kill it (SIGPIPE). Into a file it writes harmlessly.
//
// And a file without a name: it is made, opened and watched in a new directory, and the directory is
// removed at once, before git starts. git writes to the open file as descriptor 3 (a one-digit GIT_TRACE
// names a descriptor git writes to as it is), which every process it starts inherits; the file goes when
// the last of them and this process have closed it. So nothing is left behind, whenever the sync or git is
// killed, and a process that outlives the fetch writes into a file nobody will read.
import { closeSync, constants, mkdtempSync, openSync, readSync, rmdirSync, unlinkSync, watch } from 'node:fs';
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

/**
 * The descriptor a followed fetch's trace is handed to git as: the child's fourth (after its stdin, stdout
 * and stderr), and one digit, which is what makes git take GIT_TRACE's value for a descriptor, not a path.
 */
export const TRACE_DESCRIPTOR = 3;

/** A fetch's trace, followed as git writes it (followFetchTrace). */
export interface FollowedTrace {
  /** The variables to start the fetch with. */
  readonly environment: NodeJS.ProcessEnv;
  /** The open trace file, to hand to the fetch as its descriptor TRACE_DESCRIPTOR. */
  readonly descriptor: number;
  /** The commit the fetch brings, once its objects are stored; undefined once that will not be known (or `end` came first). */
  readonly stored: Promise<string | undefined>;
  /** Reads what is left, stops following and closes the file: called once the fetch has ended. */
  end(): void;
}

/**
 * A trace file for one fetch of `ref`, with no name left by the time this returns (see the head of this
 * file), read as it grows (a watch on the file); undefined when the user traces git already, on Windows
 * (where a file in use cannot lose its name, and git's descriptor tracing is not tried), or when nothing can
 * be set up. A sync without it waits for the fetch's end, as it did before the trace was read.
 */
export function followFetchTrace(ref: string, env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): FollowedTrace | undefined {
  if (userTracesGit(env) || platform === 'win32') return undefined;
  let directory: string;
  try {
    directory = mkdtempSync(join(tmpdir(), 'wave-scope-fetch-'));
  } catch {
    return undefined;
  }
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
    if (decided || descriptor === undefined) return;
    try {
      for (let count = readSync(descriptor, chunk, 0, chunk.length, offset); count > 0; count = readSync(descriptor, chunk, 0, chunk.length, offset)) {
        offset += count;
        if (reader.take(text.write(chunk.subarray(0, count)))) return decide();
      }
    } catch {
      // Unreadable: then nothing is read ahead.
      decide();
    }
  };
  const path = join(directory, 'trace');
  let created = false;
  try {
    // Appended to by every git process that inherits it (as git opens a trace file itself); read here at
    // offsets of our own, which leaves the shared position alone.
    descriptor = openSync(path, constants.O_RDWR | constants.O_APPEND | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0), 0o600);
    created = true;
    // The watch is on the file itself, so it outlives the file's name.
    watcher = watch(path, readMore);
    watcher.on('error', decide);
  } catch {
    watcher?.close();
    if (descriptor !== undefined) closeSync(descriptor);
    descriptor = undefined;
  }
  // The file's name and its directory go before git starts (the file lives on while it is open).
  try {
    if (created) unlinkSync(path);
    rmdirSync(directory);
  } catch {
    // Left in the temporary directory (empty, or an empty file in it): nothing is written to it under this name.
  }
  if (descriptor === undefined) return undefined;
  const held = descriptor;
  return {
    environment: { GIT_TRACE: String(TRACE_DESCRIPTOR), GIT_TRACE_PACKET: String(TRACE_DESCRIPTOR) },
    descriptor: held,
    stored,
    end() {
      readMore();
      decide();
      if (descriptor === undefined) return;
      descriptor = undefined;
      try {
        closeSync(held);
      } catch {
        // Already closed: nothing to give back.
      }
    },
  };
}
