// Entry of the planner webview bundle (media/dist/planner.js). The only file that calls
// acquireVsCodeApi(): everything else talks to the small Host interface (host.ts).
import { connectHost } from './host';
import type { WebviewApi } from './host';
import { initialState, restoreState } from './plannerState';
import { PlannerView } from './plannerView';

declare function acquireVsCodeApi(): WebviewApi;

const host = connectHost(acquireVsCodeApi(), window);

// Persisted state of another version is dropped rather than half-understood.
const restored = restoreState(host.getState()) ?? initialState();
const container = document.getElementById('planner');
if (container) new PlannerView(host, container, restored);
