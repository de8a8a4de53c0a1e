import type { CliIo } from '../cliIo';
import { messages } from '../messages';

export async function runMaterialize(_args: string[], io: CliIo): Promise<number> {
  io.writeStderr(messages.notImplemented('materialize'));
  return 2;
}
