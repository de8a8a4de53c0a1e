// The sentences the planner says about a collision: why two entries collide (the files both own today,
// or a path both would own) and what each resolution does. Pure, so the wording is tested in Node.
import type { Resolution, WaveCollision } from './planAnalysis';
import { count } from './wording';

/** Why two entries collide, in one sentence. */
export function collisionReason(collision: WaveCollision): string {
  if (collision.shared > 0) {
    return collision.shared === 1
      ? `Both own 1 existing file: ${collision.witness}.`
      : `Both own ${count(collision.shared, 'existing file')}, e.g. ${collision.witness}.`;
  }
  return `No file today, but any path like ${collision.witness} would be owned by both.`;
}

/** The collision as one of its two agents sees it (the hover of its entry's badge). */
export function collisionNote(collision: WaveCollision, side: 0 | 1): string {
  const other = collision.agents[1 - side] as string;
  const theirs = collision.entries[1 - side] as string;
  if (collision.shared > 0) {
    return `Collides with ${other} (${theirs}): ${count(collision.shared, 'existing file')} owned by both, e.g. ${collision.witness}`;
  }
  return `Collides with ${other} (${theirs}): no file today, but any path like ${collision.witness} would be owned by both`;
}

/** The label of a resolution button. */
export function resolutionLabel(resolution: Resolution): string {
  if (resolution.kind === 'remove') return `Remove ${resolution.entry} from ${resolution.agent}`;
  const files = resolution.files ?? [];
  return files.length === 1
    ? `Narrow ${resolution.agent}’s ${resolution.entry} to ${files[0]}`
    : `Narrow ${resolution.agent}’s ${resolution.entry} to its ${count(files.length, 'file')}`;
}
