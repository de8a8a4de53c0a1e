// A tiny writer process for test/cli/crashSafety.test.ts: runs the real safe chain (or materialize)
// against the real file system and SIGKILLs itself right after the N-th completed file-system change,
// through the planner's injectable write observer. Not a test file (mocha never loads it).
//
//   node --import tsx test/cli/crashSafety.driver.ts <config.json>   (the test bundles it with esbuild first)
//   config: {mode: 'plan' | 'materialize', repoRoot, stateDir, wave, role, records, ownIds, knownFiles, killAfter}
// Prints the completed steps as JSON when it is not killed.
import { readFileSync } from 'node:fs';
import { materializeWave } from '../../src/planner/plan/declarationStore';
import type { WriteStep } from '../../src/planner/plan/declarationStore';
import { nodeDeclarationFs } from '../../src/node/declarationFs';
import { writeWavePlan } from '../../src/planner/plan/planWriter';

interface DriverConfig {
  mode: 'plan' | 'materialize';
  repoRoot: string;
  stateDir: string;
  wave: number;
  role: string;
  records: unknown;
  ownIds: string[];
  knownFiles: string[];
  /** Kill after this many completed changes; 0 or absent: never. */
  killAfter?: number;
}

const config = JSON.parse(readFileSync(process.argv[2] ?? '', 'utf8')) as DriverConfig;
const steps: WriteStep[] = [];
const afterWrite = (step: WriteStep) => {
  steps.push(step);
  if (config.killAfter !== undefined && steps.length === config.killAfter) process.kill(process.pid, 'SIGKILL');
};
const fs = nodeDeclarationFs(config.stateDir);
const result =
  config.mode === 'plan'
    ? writeWavePlan(
        {
          repoRoot: config.repoRoot,
          stateDir: config.stateDir,
          wave: config.wave,
          role: config.role,
          records: config.records,
          ownIds: new Set(config.ownIds),
          knownFiles: config.knownFiles,
          afterWrite,
        },
        fs,
      )
    : materializeWave({ stateDir: config.stateDir, wave: config.wave, records: config.records, repoRoot: config.repoRoot, afterWrite }, fs);
process.stdout.write(`${JSON.stringify({ ok: result.ok, steps: steps.map((step) => step.kind) })}\n`);
