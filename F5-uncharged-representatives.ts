// F5: the proof's step budget does not charge computing character classes (computeRepresentatives, O(range ends x ranges)): two 20,000-member classes cost seconds per pair with a budget of only 10,000 steps, which never trips, so a wave of such entries runs for hours instead of being refused as too complex. Exit 1 while a 10,000-step proof runs over 1 s without ScopeProofTooComplex.
import { compiledEntry, intersectCompiled } from '/work/main/src/planner/scope/scopeAlgebra';
import { ProofBudget, ScopeProofTooComplex } from '/work/main/src/planner/scope/scopeAutomaton';
const members = (offset: number) => Array.from({ length: 20_000 }, (_, i) => String.fromCharCode(0x4e00 + 2 * i + offset)).join('');
const left = compiledEntry(`[${members(0)}]x`, false);
const right = compiledEntry(`[${members(1)}]y*`, false);
const started = performance.now();
let outcome: string;
try {
  outcome = JSON.stringify(intersectCompiled(left, right, new ProofBudget(2_000_000, 10_000)));
} catch (error) {
  if (!(error instanceof ScopeProofTooComplex)) throw error;
  outcome = 'refused: too complex';
}
const ms = Math.round(performance.now() - started);
console.log(`one pair, 10,000-step budget: ${outcome} after ${ms} ms`);
process.exit(ms > 1000 && !outcome.startsWith('refused') ? 1 : 0);
