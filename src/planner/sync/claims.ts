// Claims: which clone holds which wave's files right now. A claim lives in the published plan
// (`claims.json` on refs/wave-scope/plan) and ends three ways: its clone publishes another wave (a
// clone holds one claim at a time), its clone releases it, or its time runs out (the TTL), so a machine
// that vanished cannot hold files forever. Expiry is judged by the reader's clock against `expiresAt`.

/** How long a claim stands when `publish` is given no `--ttl`: 4 hours. Publishing again renews it. */
export const DEFAULT_CLAIM_TTL_MS = 4 * 60 * 60 * 1000;

/** The shortest TTL accepted (tests and short waves). */
export const MIN_CLAIM_TTL_MS = 1000;

/** The longest TTL accepted: 30 days. A claim that should outlive that is renewed by publishing again. */
export const MAX_CLAIM_TTL_MS = 30 * 24 * 60 * 60 * 1000;

/** What a clone is called in claims and messages. */
export interface CloneIdentity {
  /** Stable machine-readable id (`c-` and 12 hex digits); names the clone's directory on the plan ref. */
  id: string;
  /** For a person: `host:path` of the checkout when the id was made. */
  name: string;
}

/** A clone's id: lowercase letters, digits and `-`, starting with a letter or digit, at most 64 characters. */
export const CLONE_ID_PATTERN = /^[a-z0-9][a-z0-9-]{0,63}$/;

/** Whether `id` can name a clone (and so a directory on the plan ref). */
export function isCloneId(id: unknown): id is string {
  return typeof id === 'string' && CLONE_ID_PATTERN.test(id);
}

/** One clone's hold on one wave's files. */
export interface Claim {
  /** The claiming clone's id. */
  clone: string;
  /** The claiming clone's name (for people). */
  cloneName: string;
  /** The coordinator's session id when the wave was published, or null when it carried none. */
  session: string | null;
  /** The claimed wave (numbered by its clone; another clone's wave 3 is another wave). */
  wave: number;
  /** When this clone first claimed this wave (ISO 8601); a renewal keeps it. */
  claimedAt: string;
  /** When the claim was last published or renewed. */
  renewedAt: string;
  /** When the claim lapses unless renewed (ISO 8601). */
  expiresAt: string;
}

/**
 * Whether a claim still stands at `now` (milliseconds since the epoch, the reader's clock). An unparsable
 * time counts as standing. A claim no publish could have made by a clock that agrees with the reader's
 * stands no longer than the longest TTL allows: one renewed more than MAX_CLAIM_TTL_MS ahead of `now`, or
 * running longer than MAX_CLAIM_TTL_MS from its renewal, has lapsed (a clock years ahead, or a hand-made
 * claim, would otherwise hold the files for years: every TTL is at most MAX_CLAIM_TTL_MS).
 */
export function isClaimLive(claim: Claim, now: number): boolean {
  const expires = Date.parse(claim.expiresAt);
  if (Number.isNaN(expires)) return true;
  return expires > now && !isClaimBeyondAnyTtl(claim, now);
}

/** Whether a claim's times lie beyond what any TTL allows, seen from `now` (see isClaimLive). */
export function isClaimBeyondAnyTtl(claim: Claim, now: number): boolean {
  const expires = Date.parse(claim.expiresAt);
  const renewed = Date.parse(claim.renewedAt);
  if (Number.isNaN(expires) || Number.isNaN(renewed)) return false;
  return renewed - now > MAX_CLAIM_TTL_MS || expires - renewed > MAX_CLAIM_TTL_MS;
}

/** Parses a `--ttl` value: a positive number with unit `s`, `m`, `h` or `d` (`90m`, `4h`, `1d`); undefined when unusable. */
export function parseClaimTtl(text: string): number | undefined {
  const match = /^([1-9][0-9]{0,8})(s|m|h|d)$/.exec(text.trim());
  if (match === null) return undefined;
  const unit = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[match[2] as 's' | 'm' | 'h' | 'd'];
  const ms = Number(match[1]) * unit;
  return ms >= MIN_CLAIM_TTL_MS && ms <= MAX_CLAIM_TTL_MS ? ms : undefined;
}

function isIsoTime(value: unknown): value is string {
  return typeof value === 'string' && !Number.isNaN(Date.parse(value));
}

/** Validates one parsed claim; undefined when it is not one. */
export function parseClaim(value: unknown): Claim | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const raw = value as Record<string, unknown>;
  if (!isCloneId(raw.clone) || typeof raw.cloneName !== 'string') return undefined;
  if (!(raw.session === null || (typeof raw.session === 'string' && raw.session.trim() !== ''))) return undefined;
  if (typeof raw.wave !== 'number' || !Number.isSafeInteger(raw.wave) || raw.wave < 1) return undefined;
  if (!isIsoTime(raw.claimedAt) || !isIsoTime(raw.renewedAt) || !isIsoTime(raw.expiresAt)) return undefined;
  return {
    clone: raw.clone,
    cloneName: raw.cloneName,
    session: raw.session,
    wave: raw.wave,
    claimedAt: raw.claimedAt,
    renewedAt: raw.renewedAt,
    expiresAt: raw.expiresAt,
  };
}

/**
 * The claim a clone publishes for `wave` at `now`: a renewal of its standing claim on the same wave keeps
 * `claimedAt`; anything else starts a new claim.
 */
export function claimFor(
  clone: CloneIdentity,
  wave: number,
  session: string | null,
  now: number,
  ttlMs: number,
  standing: readonly Claim[],
): Claim {
  const renewed = standing.find((claim) => claim.clone === clone.id && claim.wave === wave && isClaimLive(claim, now));
  const at = new Date(now).toISOString();
  return {
    clone: clone.id,
    cloneName: clone.name,
    session,
    wave,
    claimedAt: renewed?.claimedAt ?? at,
    renewedAt: at,
    expiresAt: new Date(now + ttlMs).toISOString(),
  };
}
