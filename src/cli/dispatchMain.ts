// The entry of dist/dispatch.js: the dispatch guard's hooks, loaded by src/cli/commands/dispatchHooks.ts
// only when `hook pre-dispatch` or `hook subagent-start` runs, so the write gate's bundle never parses them.
export { runPreDispatch, runSubagentStart } from './commands/preDispatch';
