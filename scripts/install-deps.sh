#!/usr/bin/env bash
# Installs the Debian packages songbox builds and tests with, when any is missing.
# Build: the four C libraries. Tests: sox and lame (fixtures), mpg123 (an independent decoder),
# python3 (process measurements), gcc (builds the fault-injecting ALSA plugin of the tests), mpc and python3-mpd (real MPD clients), mpd (the client commands are tried against it too), ncmpcpp and tmux (a terminal client, read from its pane). Benchmarks: MPD, lua5.4 and mpg123 to compare with, valgrind to
# count instructions (and binutils' strip, for the copy of songbox valgrind runs), python3-venv for the
# analysis benchmark's own environment (Essentia, librosa and pyloudnorm from PyPI). Run as root or with sudo.
set -euo pipefail

packages=(pkg-config liblua5.4-dev libsqlite3-dev libasound2-dev libmpg123-dev)
if [[ "${1:-}" == "--test" ]]; then
    packages+=(sox libsox-fmt-mp3 lame mpg123 python3 python3-mutagen util-linux gcc libc6-dev mpc python3-mpd mpd ncmpcpp tmux procps)
fi
if [[ "${1:-}" == "--bench" ]]; then
    packages+=(sox libsox-fmt-mp3 lame mpg123 python3 python3-venv mpd mpc time lua5.4 valgrind binutils strace pv)
fi

missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

sudo=""
[[ $(id -u) -ne 0 ]] && sudo="sudo"
echo "Installing: ${missing[*]}" >&2
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
