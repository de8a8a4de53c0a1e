import type { CliIo } from '../cliIo';
import { messages } from '../messages';

export async function runDigest(_args: string[], io: CliIo): Promise<number> {
  io.writeStderr(messages.notImplemented('digest'));
  return 2;
}
