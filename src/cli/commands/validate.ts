import type { CliIo } from '../cliIo';
import { messages } from '../messages';

export async function runValidate(_args: string[], io: CliIo): Promise<number> {
  io.writeStderr(messages.notImplemented('validate'));
  return 2;
}
