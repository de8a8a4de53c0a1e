// Entry of the planner webview bundle (media/dist/planner.js). The only file that calls
// acquireVsCodeApi(): everything else talks to the small Host interface.
import { initialState, isPlannerState } from './plannerState';
import type { Host } from './plannerView';
import { PlannerView } from './plannerView';
import type { HostMessage, WebviewMessage } from '../src/protocol/plannerProtocol';

interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}

declare function acquireVsCodeApi(): VsCodeApi;

const api = acquireVsCodeApi();

const host: Host = {
  postMessage: (message: WebviewMessage) => api.postMessage(message),
  getState: () => api.getState(),
  setState: (state: unknown) => api.setState(state),
  onMessage: (listener: (message: HostMessage) => void) =>
    window.addEventListener('message', (event: MessageEvent<HostMessage>) => listener(event.data)),
};

// Persisted state of another version is dropped rather than half-understood.
const saved = host.getState();
const restored = isPlannerState(saved) ? saved : initialState();
const container = document.getElementById('planner');
if (container) new PlannerView(host, container, restored);
