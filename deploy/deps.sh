#!/usr/bin/env bash
# Installs the Debian packages svc's tests and `svc dev` need beyond Go (the documents engine's
# OCR and PDF tools; each APT_PACKAGES file in the tree lists a product's). `make run` and
# `make test` call it: as root or with password-less sudo it installs what is missing with
# apt-get; otherwise it stops at once and prints the exact command to run.
set -euo pipefail
cd "$(dirname "$0")/.."

pkgs=()
while IFS= read -r f; do
  while read -r p; do
    p="${p%%#*}"; p="${p//[[:space:]]/}"
    [ -n "$p" ] && pkgs+=("$p")
  done < "$f"
done < <(git ls-files '*APT_PACKAGES' 2>/dev/null || find . -name APT_PACKAGES -not -path './.git/*')

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if ! command -v apt-get >/dev/null; then
  echo "deps: missing system packages: ${missing[*]}" >&2
  echo "deps: this is not a Debian-like system; install the equivalents of those packages and run again." >&2
  exit 1
fi
if [ "$(id -u)" -eq 0 ]; then
  sudo=()
elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
  sudo=(sudo)
else
  echo "deps: missing system packages: ${missing[*]}" >&2
  echo "deps: run this once, then run make again:" >&2
  echo "  sudo apt-get update && sudo apt-get install -y --no-install-recommends ${missing[*]}" >&2
  exit 1
fi
echo "deps: installing ${missing[*]}"
"${sudo[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
