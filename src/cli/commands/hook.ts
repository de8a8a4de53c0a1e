import type { CliIo } from '../cliIo';
import { messages } from '../messages';

export async function runHook(_args: string[], io: CliIo): Promise<number> {
  io.writeStderr(messages.notImplemented('hook'));
  return 2;
}
