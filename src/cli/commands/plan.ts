import type { CliIo } from '../cliIo';
import { messages } from '../messages';

export async function runPlan(_args: string[], io: CliIo): Promise<number> {
  io.writeStderr(messages.notImplemented('plan'));
  return 2;
}
