#!/usr/bin/env bash
# Prepares this machine for the real-host suites (extension host in code-server, Chromium end-to-end)
# and prints the absolute path of the code-server executable as the only line on stdout.
#
# Idempotent: a second run with everything in place takes well under a second.
#   1. Debian packages: chromium (driven by playwright-core), git, ripgrep (seeds @vscode/ripgrep),
#      build-essential, pkg-config, python3, libkrb5-dev (code-server's native modules).
#      Missing ones are installed as root, non-interactively, after one `apt-get update`.
#   2. code-server 4.100.3 from the npm registry into a cache outside the repository:
#      ${WAVE_SCOPE_E2E_CACHE:-$HOME/.cache/wave-scope-e2e}/code-server-<version>.
#      4.100.3 (VS Code 1.100.3) is the newest release whose engines accept Node 20.
# Everything diagnostic goes to stderr, so `CODE_SERVER=$(bash setupBrowserHost.sh)` works.
set -euo pipefail

CODE_SERVER_VERSION="${WAVE_SCOPE_CODE_SERVER_VERSION:-4.100.3}"
CACHE="${WAVE_SCOPE_E2E_CACHE:-$HOME/.cache/wave-scope-e2e}"
TARGET="$CACHE/code-server-$CODE_SERVER_VERSION"
EXECUTABLE="$TARGET/node_modules/.bin/code-server"
APT_PACKAGES=(chromium git ripgrep build-essential pkg-config python3 libkrb5-dev)

say() { echo "setupBrowserHost: $*" >&2; }

missing=()
for package in "${APT_PACKAGES[@]}"; do
  status="$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null || true)"
  [ "$status" = "install ok installed" ] || missing+=("$package")
done
if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    say "missing Debian packages: ${missing[*]}; run as root, or: sudo apt-get install -y ${missing[*]}"
    exit 1
  fi
  say "installing Debian packages: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi

if [ -f "$TARGET/.installed" ] && [ -x "$EXECUTABLE" ]; then
  echo "$EXECUTABLE"
  exit 0
fi

say "installing code-server $CODE_SERVER_VERSION into $TARGET (about 2 minutes, once)"
started=$SECONDS
rm -rf "$TARGET"
mkdir -p "$TARGET"

# code-server's postinstall runs `npm install` inside lib/vscode, where @vscode/ripgrep's own
# postinstall would download rg from GitHub (unreachable here). It first looks in a cache folder in
# the OS temp directory for the release archive; an archive holding Debian's rg (the same 13.0 line)
# satisfies it. The folder and file names are the ones @vscode/ripgrep 1.15.11 asks for.
RIPGREP_CACHE="$(node -p 'require("node:os").tmpdir()')/vscode-ripgrep-cache-1.15.11"
RIPGREP_ARCHIVE="$RIPGREP_CACHE/ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz"
if [ ! -s "$RIPGREP_ARCHIVE" ]; then
  mkdir -p "$RIPGREP_CACHE"
  staging="$(mktemp -d)"
  cp "$(command -v rg)" "$staging/rg"
  tar -czf "$RIPGREP_ARCHIVE.partial" -C "$staging" rg
  mv "$RIPGREP_ARCHIVE.partial" "$RIPGREP_ARCHIVE"
  rm -rf "$staging"
fi

# node-gyp builds code-server's native modules against Node's headers and downloads them from nodejs.org
# unless told where they are: use the headers installed with the node that runs here, when present.
NODE_PREFIX="$(dirname "$(dirname "$(readlink -f "$(command -v node)")")")"
if [ -f "$NODE_PREFIX/include/node/node.h" ]; then export npm_config_nodedir="$NODE_PREFIX"; fi

# npm_config_yes: a native module's postinstall runs `npx node-gyp`, which an npmrc `yes=false` cancels.
# npm_config_unsafe_perm: code-server's postinstall refuses to run as root otherwise.
if ! (cd "$TARGET" && npm init -y >/dev/null &&
  npm_config_yes=true npm_config_unsafe_perm=true \
    npm install --no-audit --no-fund --no-save "code-server@$CODE_SERVER_VERSION" >"$TARGET/install.log" 2>&1); then
  say "npm install code-server@$CODE_SERVER_VERSION failed; last lines of $TARGET/install.log:"
  tail -40 "$TARGET/install.log" >&2
  exit 1
fi
if [ ! -x "$EXECUTABLE" ]; then
  say "install finished but $EXECUTABLE is missing"
  exit 1
fi
touch "$TARGET/.installed"
say "code-server $CODE_SERVER_VERSION installed in $((SECONDS - started)) s"
echo "$EXECUTABLE"
