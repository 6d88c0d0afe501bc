#!/usr/bin/env bash
# Installs Debian packages for the test script without starting their services.
#
#   scripts/deb-install.sh PACKAGE...
#
# Servers the tests need (PostgreSQL, Redis, nginx) are started by the tests themselves, on
# free 127.0.0.1 ports; a package's own service would listen on its well-known port on every
# interface. So, for the install only, service starts are denied (/usr/sbin/policy-rc.d
# answering 101), and the machine's own policy, if it has one, is put back afterwards, also
# when the install fails or is interrupted. Needs root. Progress goes to stderr.
set -euo pipefail

[[ $# -gt 0 ]] || { echo "usage: scripts/deb-install.sh PACKAGE..." >&2; exit 2; }
[[ $(id -u) == 0 ]] || { echo "deb-install.sh: installing $* needs root (apt-get)" >&2; exit 1; }

policy=/usr/sbin/policy-rc.d
saved=$(mktemp)
had_policy=false
if [[ -e $policy ]]; then
  cp -p "$policy" "$saved"
  had_policy=true
fi
restore() {
  if $had_policy; then cp -p "$saved" "$policy"; else rm -f "$policy"; fi
  rm -f "$saved"
}
trap restore EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
printf '#!/bin/sh\n# Written by scripts/deb-install.sh for the length of an install.\nexit 101\n' >"$policy"
chmod +x "$policy"

export DEBIAN_FRONTEND=noninteractive
echo "deb-install.sh: installing $* with apt-get" >&2
apt-get update -qq >&2
apt-get install -y -qq --no-install-recommends "$@" >&2
