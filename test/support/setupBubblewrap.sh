#!/usr/bin/env bash
# Prepares this machine for the confinement tests of `wave-scope run --confine` (test/cli/runConfine.test.ts):
# installs Debian's bubblewrap when it is missing (as root, non-interactively, after one `apt-get update`),
# then proves it can build the kind of sandbox a turn gets. Prints the bwrap executable as the only line
# on stdout; everything diagnostic goes to stderr. Idempotent: with bubblewrap in place it only probes.
#
# A machine where this fails fails the suite: the confinement tests never skip (a missing bwrap is a failure).
set -euo pipefail

say() { echo "setupBubblewrap: $*" >&2; }

status="$(dpkg-query -W -f='${Status}' bubblewrap 2>/dev/null || true)"
if [ "$status" != "install ok installed" ] && ! command -v bwrap >/dev/null 2>&1; then
  if [ "$(id -u)" -ne 0 ]; then
    say "bubblewrap is missing; run as root, or: sudo apt-get install -y bubblewrap"
    exit 1
  fi
  say "installing the Debian package bubblewrap"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq --no-install-recommends bubblewrap >&2
fi

BWRAP="$(command -v bwrap || true)"
if [ -z "$BWRAP" ]; then
  say "bubblewrap is installed but no bwrap is on PATH"
  exit 1
fi
# The same sandbox `run --confine` builds (src/node/bubblewrap.ts), around `true`.
if ! "$BWRAP" --ro-bind / / --dev /dev --proc /proc --cap-drop ALL --unshare-pid --die-with-parent -- true; then
  say "$BWRAP cannot build a sandbox here (no user namespaces for this user, or a kernel without them)"
  exit 1
fi
echo "$BWRAP"
