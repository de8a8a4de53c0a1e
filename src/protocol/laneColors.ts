// Lane colours: the one palette the planner gives new agents (in the webview) and agents read from
// disk without a remembered colour (in the extension). Both sides import it from here.

/** Lane colours (`#rrggbb`), chosen to stay distinguishable on light, dark and high-contrast themes. */
export const LANE_COLORS = ['#3794ff', '#e5a000', '#4ec94e', '#d16fd1', '#f14c4c', '#2fb5b5', '#c08b5c', '#8c8cff'] as const;

/** The colour of the lane at `index`, round the palette. */
export function laneColorAt(index: number): string {
  const count = LANE_COLORS.length;
  return LANE_COLORS[((Math.trunc(index) % count) + count) % count] ?? LANE_COLORS[0];
}

/** The first colour of the palette that `used` does not hold, else the colour of lane `used.length`. */
export function nextLaneColor(used: readonly string[]): string {
  const taken = new Set(used);
  return LANE_COLORS.find((color) => !taken.has(color)) ?? laneColorAt(used.length);
}
