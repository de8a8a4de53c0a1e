// Placeholder until the planner webview lands.
document.body.textContent = 'Wave Scope planner';
