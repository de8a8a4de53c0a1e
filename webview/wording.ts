// How the planner counts things in words: one home, so "1 matching files" cannot come back.

/** `1 file`, `2 files`; `plural` for words that do not just add an s (`entry` → `entries`). */
export function count(value: number, singular: string, plural = `${singular}s`): string {
  return `${value} ${value === 1 ? singular : plural}`;
}

/** `a`, `a and b`, `a, b and c`. */
export function listed(items: readonly string[]): string {
  if (items.length <= 1) return items[0] ?? '';
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1] as string}`;
}

/** A time of day as the claims and the save status show it (`10:42`), in the page's own time zone. */
export function clockTime(at: number | string): string {
  const date = new Date(at);
  if (Number.isNaN(date.getTime())) return String(at);
  return `${String(date.getHours()).padStart(2, '0')}:${String(date.getMinutes()).padStart(2, '0')}`;
}
