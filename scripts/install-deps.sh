#!/usr/bin/env bash
# Installs the Debian packages songbox builds and tests with, when any is missing.
# Build: the C libraries (libmpg123, libFLAC, libvorbisfile, libopusfile with libogg, libfaad2 (AAC), ALSA, Lua), and gettext's msgfmt (compiles the message catalogs, po/*.po). Tests: sox and lame (fixtures), mpg123 (an independent decoder), flac, vorbis-tools, opus-tools, faad and ffmpeg (encoders and reference decoders of the other formats),
# espeak-ng (text to speech, an optional dependency of songbox itself), python3 (process measurements), gcc (builds the fault-injecting ALSA plugin of the tests), mpc and python3-mpd (real MPD clients), mpd (the client commands are tried against it too), ncmpcpp and tmux (a terminal client, read from its pane), systemd (systemd-analyze verifies the units). Benchmarks: MPD, lua5.4 and mpg123 to compare with, valgrind to
# count instructions (and binutils' strip, for the copy of songbox valgrind runs), gcc (bench/scan-floor.c), python3-venv for the
# analysis benchmark's own environment (Essentia, librosa and pyloudnorm from PyPI). The web app's
# tests drive Debian's chromium through chromium-driver with Selenium (from PyPI, into the
# virtual environment .build/test-venv, made here with python3-venv). Tests also need
# the he_IL.UTF-8 and de_DE.UTF-8 locales (Debian's locales package, generated here): they run
# songbox in Hebrew, and with a decimal comma.
# Run as root or with sudo.
set -euo pipefail

packages=(pkg-config liblua5.4-dev libsqlite3-dev libasound2-dev libmpg123-dev libflac-dev libvorbis-dev libopusfile-dev libopus-dev libogg-dev libfaad-dev gettext)
if [[ "${1:-}" == "--test" ]]; then
    packages+=(sox libsox-fmt-mp3 lame mpg123 flac vorbis-tools opus-tools faad ffmpeg python3 python3-mutagen util-linux gcc libc6-dev mpc python3-mpd mpd ncmpcpp tmux procps locales nginx-light icecast2 openssl systemd
               python3-venv chromium chromium-driver fonts-dejavu-core espeak-ng)
fi
if [[ "${1:-}" == "--bench" ]]; then
    packages+=(sox libsox-fmt-mp3 lame mpg123 flac vorbis-tools opus-tools faad ffmpeg python3 python3-venv mpd mpc time lua5.4 valgrind binutils strace pv gcc libc6-dev chromium chromium-driver curl)
fi

missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done

sudo=""
[[ $(id -u) -ne 0 ]] && sudo="sudo"
if [[ ${#missing[@]} -gt 0 ]]; then
    echo "Installing: ${missing[*]}" >&2
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi

# The locales the tests run songbox under: he_IL.UTF-8 (its messages in Hebrew) and de_DE.UTF-8
# (numbers with a decimal comma), generated once.
if [[ "${1:-}" == "--test" ]]; then
    wanted=()
    for name in he_IL de_DE; do
        locale -a 2>/dev/null | grep -qx "$name.utf8" || wanted+=("$name")
    done
    if [[ ${#wanted[@]} -gt 0 ]]; then
        for name in "${wanted[@]}"; do
            echo "Generating the $name.UTF-8 locale" >&2
            $sudo sed -i "s/^# *\($name.UTF-8 UTF-8\)/\1/" /etc/locale.gen
            grep -qx "$name.UTF-8 UTF-8" /etc/locale.gen || echo "$name.UTF-8 UTF-8" | $sudo tee -a /etc/locale.gen >/dev/null
        done
        $sudo locale-gen >&2
    fi
fi

# Selenium for the web app's browser tests (Tests/SongboxCLITests/web), from PyPI, in a virtual
# environment of the build's own (pip's network is PyPI only; the browser is Debian's).
if [[ "${1:-}" == "--test" ]]; then
    venv="$(cd "$(dirname "$0")/.." && pwd)/.build/test-venv"
    if ! "$venv/bin/python" -c "import selenium" 2>/dev/null; then
        echo "Installing Selenium into $venv" >&2
        python3 -m venv "$venv"
        "$venv/bin/pip" install -q "selenium>=4.15,<5" >&2
    fi
fi
