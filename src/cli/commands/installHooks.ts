import type { CliIo } from '../cliIo';
import { messages } from '../messages';

export async function runInstallHooks(_args: string[], io: CliIo): Promise<number> {
  io.writeStderr(messages.notImplemented('installHooks'));
  return 2;
}
