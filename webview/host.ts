// The planner's view of its surroundings: a small typed Host (requests with a timeout, commands,
// notifications, persisted state). main.ts is the only file that calls acquireVsCodeApi(); it hands
// the API to connectHost, and everything else talks to the Host it returns.
import type { CommandType, NotificationType, ParamsOf, RequestType, ResultOf } from '../src/protocol/ipc';
import { IpcEndpoint } from '../src/protocol/ipc';
import { ReportProblemCommand } from '../src/protocol/plannerProtocol';

/** What the planner needs from the VS Code webview API (acquireVsCodeApi()'s result). */
export interface WebviewApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}

/** Where the host's messages arrive (the webview's `window`). */
export interface MessageSource {
  addEventListener(type: 'message', listener: (event: MessageEvent) => void): void;
}

/** The planner's channel to the extension. */
export interface Host {
  /** Sends a request; rejects with a RequestFailedError when it fails or gets no answer in time. */
  request<T extends RequestType>(type: T, params: ParamsOf<T>, options?: { timeoutMs?: number }): Promise<ResultOf<T>>;
  command<T extends CommandType>(type: T, params: ParamsOf<T>): void;
  onNotification<T extends NotificationType>(type: T, listener: (params: ParamsOf<T>) => void): void;
  /** The state VS Code persisted for this webview (survives a hidden tab and a reload), if any. */
  getState(): unknown;
  setState(state: unknown): void;
}

/** The Host over the VS Code webview API: one endpoint, problems reported to the extension's log. */
export function connectHost(api: WebviewApi, source: MessageSource): Host {
  const endpoint: IpcEndpoint = new IpcEndpoint({
    post: (message) => api.postMessage(message),
    onProblem: (problem) => endpoint.sendCommand(ReportProblemCommand, { message: `webview: ${problem}` }),
  });
  source.addEventListener('message', (event) => {
    endpoint.receive(event.data).catch((error: unknown) => {
      endpoint.sendCommand(ReportProblemCommand, { message: `webview: handling a host message failed: ${describe(error)}` });
    });
  });
  return {
    request: (type, params, options) => endpoint.sendRequest(type, params, options),
    command: (type, params) => endpoint.sendCommand(type, params),
    onNotification: (type, listener) => endpoint.onNotification(type, listener),
    getState: () => api.getState(),
    setState: (state) => api.setState(state),
  };
}

function describe(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}
