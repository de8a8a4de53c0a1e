// The envelope every message between the extension and a webview travels in, and the one endpoint
// both sides use to send and receive them. Knows nothing of the planner: plannerProtocol.ts declares
// its messages with the descriptors below.
//
//   XxxRequest            expects one reply, matched by id: a typed result or an error; rejects on timeout
//   XxxCommand            webview → host, fire and forget
//   DidXxxNotification    host → webview, fire and forget
//
// A descriptor carries the valibot schema of its params (and of a request's result), so one declaration
// gives the TypeScript type (inferred) and the runtime check (both sides parse what they receive):
// no caller casts `unknown`, and no guard is kept by hand.
import * as v from 'valibot';

/** Any valibot schema (the descriptors' type parameters). */
export type AnySchema = v.GenericSchema<unknown, unknown>;

/** A message that expects one reply with a result of `Result`'s type. */
export interface RequestType<Method extends string = string, Params extends AnySchema = AnySchema, Result extends AnySchema = AnySchema> {
  readonly kind: 'request';
  readonly method: Method;
  readonly params: Params;
  readonly result: Result;
  /** How long the sender waits for the reply before the request rejects (ms). */
  readonly timeoutMs: number;
}

/** A fire-and-forget message from the webview to the host. */
export interface CommandType<Method extends string = string, Params extends AnySchema = AnySchema> {
  readonly kind: 'command';
  readonly method: Method;
  readonly params: Params;
}

/** A fire-and-forget message from the host to the webview. */
export interface NotificationType<Method extends string = string, Params extends AnySchema = AnySchema> {
  readonly kind: 'notification';
  readonly method: Method;
  readonly params: Params;
}

/** What a request waits for its reply by default: long enough for a save of a large plan on a slow machine. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;

export function requestType<Method extends string, Params extends AnySchema, Result extends AnySchema>(
  method: Method,
  params: Params,
  result: Result,
  options: { timeoutMs?: number } = {},
): RequestType<Method, Params, Result> {
  return { kind: 'request', method, params, result, timeoutMs: options.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS };
}

export function commandType<Method extends string, Params extends AnySchema>(method: Method, params: Params): CommandType<Method, Params> {
  return { kind: 'command', method, params };
}

export function notificationType<Method extends string, Params extends AnySchema>(
  method: Method,
  params: Params,
): NotificationType<Method, Params> {
  return { kind: 'notification', method, params };
}

/** The params type of a descriptor. */
export type ParamsOf<T extends { params: AnySchema }> = v.InferOutput<T['params']>;
/** The result type of a request descriptor. */
export type ResultOf<T extends RequestType> = v.InferOutput<T['result']>;

// ---- the wire ------------------------------------------------------------------------------------

const ID = v.pipe(v.number(), v.integer(), v.minValue(1));

/** The envelope of every message; params and results are checked against their descriptor after routing. */
export const WireMessageSchema = v.variant('kind', [
  v.object({ kind: v.literal('request'), id: ID, method: v.string(), params: v.unknown() }),
  v.object({ kind: v.literal('command'), method: v.string(), params: v.unknown() }),
  v.object({ kind: v.literal('notification'), method: v.string(), params: v.unknown() }),
  v.object({
    kind: v.literal('reply'),
    id: ID,
    result: v.optional(v.unknown()),
    /** Set when the request failed; `result` is then absent. */
    error: v.optional(v.object({ message: v.string(), reason: v.optional(v.string()) })),
  }),
]);

/** A message as it travels (postMessage, structured clone). */
export type WireMessage = v.InferOutput<typeof WireMessageSchema>;

// ---- errors --------------------------------------------------------------------------------------

/** Why a request did not produce a result. */
export type RequestFailureReason = 'timeout' | 'error-reply' | 'invalid-result' | 'closed' | 'invalid-params' | 'no-handler';

/** A request that did not produce a result; `reason` says why, `message` is for a person. */
export class RequestFailedError extends Error {
  constructor(
    readonly method: string,
    readonly reason: RequestFailureReason,
    message: string,
  ) {
    super(message);
    this.name = 'RequestFailedError';
  }
}

/** Short text of any thrown value, for a reply or a log line. */
export function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function describeIssues(issues: readonly v.BaseIssue<unknown>[]): string {
  return issues
    .slice(0, 3)
    .map((issue) => {
      const path = issue.path?.map((item) => String(item.key)).join('.');
      return path ? `${path}: ${issue.message}` : issue.message;
    })
    .join('; ');
}

// ---- the endpoint --------------------------------------------------------------------------------

type Handler = (params: unknown) => unknown;

interface Pending {
  method: string;
  result: AnySchema;
  resolve(value: unknown): void;
  reject(error: RequestFailedError): void;
  timer: ReturnType<typeof setTimeout>;
}

export interface IpcEndpointOptions {
  /** Sends one message to the other side. */
  post(message: WireMessage): void;
  /** Something the other side sent that this endpoint could not use (malformed, unknown, late); for a log. */
  onProblem?(problem: string): void;
  /**
   * Notifications wait until this endpoint has replied successfully to this request (the webview's
   * ready request), then go out in the order they were sent.
   */
  holdNotificationsUntilReplyTo?: RequestType;
}

/**
 * One side of a conversation: sends typed requests (with a timeout), commands and notifications, and
 * routes what arrives to typed handlers after checking it against the descriptor's schema.
 */
export class IpcEndpoint {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly requestHandlers = new Map<string, { type: RequestType; handle: Handler }>();
  private readonly messageHandlers = new Map<string, { type: CommandType | NotificationType; handle: Handler }>();
  private held: WireMessage[] | undefined;
  private closed = false;

  constructor(private readonly options: IpcEndpointOptions) {
    if (options.holdNotificationsUntilReplyTo) this.held = [];
  }

  /** Whether held notifications have been released (the ready request was answered), or none are held. */
  get released(): boolean {
    return this.held === undefined;
  }

  /** Sends a request; resolves with its checked result, rejects with a RequestFailedError. */
  sendRequest<T extends RequestType>(type: T, params: ParamsOf<T>, options: { timeoutMs?: number } = {}): Promise<ResultOf<T>> {
    if (this.closed) return Promise.reject(new RequestFailedError(type.method, 'closed', `${type.method}: the connection is closed.`));
    const id = this.nextId++;
    const timeoutMs = options.timeoutMs ?? type.timeoutMs;
    return new Promise<ResultOf<T>>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(
          new RequestFailedError(type.method, 'timeout', `No answer to ${type.method} within ${formatDuration(timeoutMs)}.`),
        );
      }, timeoutMs);
      this.pending.set(id, { method: type.method, result: type.result, resolve: resolve as (value: unknown) => void, reject, timer });
      this.options.post({ kind: 'request', id, method: type.method, params });
    });
  }

  sendCommand<T extends CommandType>(type: T, params: ParamsOf<T>): void {
    if (!this.closed) this.options.post({ kind: 'command', method: type.method, params });
  }

  /** Sends a notification now, or once the ready request is answered when notifications are held. */
  sendNotification<T extends NotificationType>(type: T, params: ParamsOf<T>): void {
    if (this.closed) return;
    const message: WireMessage = { kind: 'notification', method: type.method, params };
    if (this.held) this.held.push(message);
    else this.options.post(message);
  }

  onRequest<T extends RequestType>(type: T, handle: (params: ParamsOf<T>) => ResultOf<T> | Promise<ResultOf<T>>): void {
    this.requestHandlers.set(type.method, { type, handle: handle as Handler });
  }

  onCommand<T extends CommandType>(type: T, handle: (params: ParamsOf<T>) => void | Promise<void>): void {
    this.messageHandlers.set(`command:${type.method}`, { type, handle: handle as Handler });
  }

  onNotification<T extends NotificationType>(type: T, handle: (params: ParamsOf<T>) => void): void {
    this.messageHandlers.set(`notification:${type.method}`, { type, handle: handle as Handler });
  }

  /**
   * Handles one message from the other side. Resolves when its handler is done; a request's handler
   * that throws is answered with an error reply, a command's or notification's rejects this promise
   * (the caller's boundary logs it).
   */
  async receive(raw: unknown): Promise<void> {
    if (this.closed) return;
    const envelope = v.safeParse(WireMessageSchema, raw);
    if (!envelope.success) {
      this.problem(`ignored a message that is not a protocol message (${describeIssues(envelope.issues)}): ${preview(raw)}`);
      return;
    }
    const message = envelope.output;
    switch (message.kind) {
      case 'reply':
        this.settle(message);
        return;
      case 'request':
        await this.answer(message.id, message.method, message.params);
        return;
      case 'command':
      case 'notification': {
        const entry = this.messageHandlers.get(`${message.kind}:${message.method}`);
        if (!entry) {
          this.problem(`ignored the ${message.kind} "${message.method}", which this side does not handle`);
          return;
        }
        const params = v.safeParse(entry.type.params, message.params);
        if (!params.success) {
          this.problem(`ignored the ${message.kind} "${message.method}": ${describeIssues(params.issues)}`);
          return;
        }
        await entry.handle(params.output);
        return;
      }
    }
  }

  /** Rejects every pending request and drops held notifications; later messages are ignored. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.held = undefined;
    for (const [id, pending] of this.pending) {
      clearTimeout(pending.timer);
      this.pending.delete(id);
      pending.reject(new RequestFailedError(pending.method, 'closed', `${pending.method}: the connection closed before the answer came.`));
    }
  }

  private async answer(id: number, method: string, rawParams: unknown): Promise<void> {
    const entry = this.requestHandlers.get(method);
    if (!entry) {
      this.problem(`answered the unknown request "${method}" with an error`);
      this.options.post({ kind: 'reply', id, error: { message: `Unknown request "${method}".`, reason: 'no-handler' } });
      return;
    }
    const params = v.safeParse(entry.type.params, rawParams);
    if (!params.success) {
      const detail = describeIssues(params.issues);
      this.problem(`refused the request "${method}": ${detail}`);
      this.options.post({ kind: 'reply', id, error: { message: `Malformed ${method} request: ${detail}`, reason: 'invalid-params' } });
      return;
    }
    let result: unknown;
    try {
      result = await entry.handle(params.output);
    } catch (error) {
      if (this.closed) return;
      this.options.post({ kind: 'reply', id, error: { message: describeError(error), reason: errorReason(error) } });
      return;
    }
    if (this.closed) return;
    this.options.post({ kind: 'reply', id, result });
    if (this.held && entry.type === this.options.holdNotificationsUntilReplyTo) {
      const held = this.held;
      this.held = undefined;
      for (const message of held) this.options.post(message);
    }
  }

  private settle(reply: Extract<WireMessage, { kind: 'reply' }>): void {
    const pending = this.pending.get(reply.id);
    if (!pending) {
      this.problem(`ignored a reply to request ${reply.id}, which is not waiting (it timed out or was never sent)`);
      return;
    }
    this.pending.delete(reply.id);
    clearTimeout(pending.timer);
    if (reply.error) {
      pending.reject(new RequestFailedError(pending.method, 'error-reply', reply.error.message));
      return;
    }
    const result = v.safeParse(pending.result, reply.result);
    if (!result.success) {
      const detail = describeIssues(result.issues);
      this.problem(`the answer to ${pending.method} is malformed: ${detail}`);
      pending.reject(new RequestFailedError(pending.method, 'invalid-result', `The answer to ${pending.method} is malformed: ${detail}`));
      return;
    }
    pending.resolve(result.output);
  }

  private problem(text: string): void {
    this.options.onProblem?.(text);
  }
}

function errorReason(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const reason = (error as { reason?: unknown }).reason;
  return typeof reason === 'string' ? reason : undefined;
}

function formatDuration(milliseconds: number): string {
  return milliseconds < 1000 ? `${Math.round(milliseconds)} ms` : `${Math.round(milliseconds / 100) / 10} s`;
}

function preview(value: unknown): string {
  try {
    return (JSON.stringify(value) ?? String(value)).slice(0, 200);
  } catch {
    return String(value).slice(0, 200);
  }
}
