#!/usr/bin/env bash
# The Debian packages the tests drive, installed when missing (as root; otherwise it names what
# is missing and the tests that need it will say so): Chromium for the browser tests (render's
# page, the web app, the README examples, the packed pure layers), tmux, less and fzf for the
# terminal tests (pager, picker), and PostgreSQL's server binaries for the team backend's tests
# (they start a throw-away cluster). `npm run verify` runs it first.
set -euo pipefail
missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
command -v tmux >/dev/null || missing+=(tmux)
command -v less >/dev/null || missing+=(less)
command -v fzf >/dev/null || missing+=(fzf)
compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || missing+=(postgresql)
[ "${#missing[@]}" -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "installing ${missing[*]} (Debian packages the tests use)" >&2
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
else
  echo "missing system packages the tests use: ${missing[*]} (install them as root: apt-get install ${missing[*]})" >&2
fi
