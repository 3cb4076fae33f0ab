#!/usr/bin/env bash
# The arm64 songbox (.build/pi/songbox, from `make pi`) run under qemu-aarch64 on this x86_64
# machine, beside the x86_64 build, each with a home and a library of its own:
#   --version; scan examples/music; ls, and ls with a Hebrew query; play --output wav:FILE --fast:
#   FLAC and WAV tracks give the x86 build's PCM byte for byte, and MP3 tracks the PCM of
#   Debian's own mpg123 of the same architecture (libmpg123 rounds differently on arm64: see
#   docs/raspberry-pi.md); analyze: every feature of the FLAC/WAV tracks within float rounding of
#   the x86 build's; run examples/mood-playlist.lua calm 45; a daemon on a free loopback port
#   that answers `mpc status` and plays, and its resident memory idle and playing.
# The arm64 binary runs on the arm64 packages a Pi user installs (docs/raspberry-pi.md), unpacked
# into $PI_BUILD/runtime-arm64 (qemu's -L): so this also checks that list.
#   scripts/pi-check.sh           # or: make pi-check
# Ends with "pi-check: N passed, N failed"; exit status 1 if anything failed.
set -uo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
PI_BUILD=${PI_BUILD:-$(dirname "$repo")/pi-build}
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
arm=$repo/.build/pi/songbox
x86=${X86_SONGBOX:-$repo/.build/debug/songbox}
root=$PI_BUILD/runtime-arm64
# What a Pi user installs to run the binary (docs/raspberry-pi.md), and mpg123 to compare with.
RUNTIME_PACKAGES=(liblua5.4-0 libsqlite3-0 libasound2t64 libmpg123-0t64 libflac14 libvorbisfile3 libopusfile0 libfaad2)
passed=0 failed=0
ok() { echo "ok: $*"; passed=$((passed + 1)); }
bad() { echo "FAILED: $*"; failed=$((failed + 1)); }

[[ -x $arm ]] || { echo "pi-check: $arm is missing: make pi first" >&2; exit 1; }
# $PI_BUILD belongs to root when make pi ran through sudo: then this runs through sudo too.
[[ $(id -u) -eq 0 || -w $PI_BUILD ]] || exec sudo --preserve-env=PI_BUILD,DEBIAN_MIRROR,X86_SONGBOX "$0" "$@"
sudo=""
[[ $(id -u) -ne 0 ]] && sudo="sudo"
need=()
command -v qemu-aarch64-static >/dev/null || need+=(qemu-user-static)
for tool in mpc python3 mpg123 flac file; do command -v $tool >/dev/null || need+=($tool); done
if [[ ${#need[@]} -gt 0 ]]; then
    $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >&2
fi
if [[ ! -f $root/.complete ]]; then
    echo "pi-check: the arm64 runtime packages into $root" >&2
    . "$repo/scripts/pi-apt.sh"
    private_apt trixie-arm64-runtime arm64 "$MIRROR trixie main"
    rm -rf "$root"
    unpack_packages trixie-arm64-runtime "$root" "${RUNTIME_PACKAGES[@]}" mpg123 || exit 1
    touch "$root/.complete"
fi
if [[ ! -x $x86 ]]; then
    echo "pi-check: building the x86_64 songbox to compare with" >&2
    (cd "$repo" && swift build --product songbox >&2) || exit 1
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/pi-check.XXXXXX")
daemon_pid=""
cleanup() {
    [[ -n $daemon_pid ]] && kill "$daemon_pid" 2>/dev/null && wait "$daemon_pid" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT
for side in arm x86; do mkdir -p "$work/$side/home" "$work/$side/run" && chmod 700 "$work/$side/run"; done
arm_run() { qemu-aarch64-static -L "$root" "$@"; }
# One songbox command on SIDE's library (DB, default library.db), in that side's own home.
run_as() { # SIDE ARGS...
    local side=$1; shift
    local -a cmd=("$x86")
    [[ $side == arm ]] && cmd=(qemu-aarch64-static -L "$root" "$arm")
    (cd "$repo" && env HOME="$work/$side/home" XDG_RUNTIME_DIR="$work/$side/run" XDG_CONFIG_HOME="$work/$side/home/.config" \
        XDG_CACHE_HOME="$work/$side/home/.cache" XDG_DATA_HOME="$work/$side/home/.local/share" \
        SONGBOX_DB="$work/$side/${DB:-library.db}" LC_ALL=C.UTF-8 "${cmd[@]}" "$@")
}
# Same output from both builds, but for the timings ("in 0.01 s", "59x real time").
same() { # NAME ARGS...
    local name=$1; shift
    run_as arm "$@" > "$work/arm.out" 2>&1; local arm_status=$?
    run_as x86 "$@" > "$work/x86.out" 2>&1; local x86_status=$?
    local norm="s#$work/(arm|x86)/#WORK/#g; "'s/[0-9]+(\.[0-9]+)? ?(s|ms)\b/T/g; s/[0-9]+x real time/Nx real time/g; s/on [0-9]+ cores?/on N cores/g'
    if [[ $arm_status -ne $x86_status ]]; then
        bad "$name: status $arm_status on arm64, $x86_status on x86_64"; sed 's/^/  arm64: /' "$work/arm.out" | head -20
    elif ! diff <(sed -E "$norm" "$work/arm.out") <(sed -E "$norm" "$work/x86.out") > "$work/diff"; then
        bad "$name: the outputs differ"; head -30 "$work/diff" | sed 's/^/  /'
    else
        ok "$name (status $arm_status, $(wc -l < "$work/arm.out") lines)"
    fi
}
# PCM (WAV data after the 44-byte header) of two files: equal, or how they differ.
pcm_compare() { # A B
    python3 - "$1" "$2" <<'EOF'
import sys, array
a, b = (array.array("h", open(p, "rb").read()[44:]) for p in sys.argv[1:3])
if a == b: print(f"equal, {len(a)} samples"); sys.exit(0)
n = min(len(a), len(b)); d = [abs(x - y) for x, y in zip(a[:n], b[:n])]
print(f"{len(a)} and {len(b)} samples, {sum(1 for x in d if x)} differ, largest difference {max(d)} (of 32767)")
sys.exit(1)
EOF
}

echo "== arm64: $(file -b "$arm" | cut -d, -f1-2), $(du -h "$arm" | cut -f1); runtime: ${RUNTIME_PACKAGES[*]} (trixie arm64)"
version=$(run_as arm --version 2>&1)
if [[ $? -eq 0 && $version == "$(run_as x86 --version 2>&1)" ]]; then ok "--version: $version"; else bad "--version: $version"; fi

same "scan examples/music" scan examples/music
same "ls" ls
same "ls title:אהבה" ls 'title:אהבה'
count=$(run_as arm ls 'title:אהבה' 2>/dev/null | tail -n +2 | grep -c .)
[[ $count -ge 2 ]] && ok "ls title:אהבה found $count tracks (niqqud ignored)" || bad "ls title:אהבה found $count tracks"

# Lossless copies of three example tracks, made here once (x86 mpg123, flac), the same files for
# both builds: a library of FLAC and WAV whose PCM must come out the same to the bit.
mkdir -p "$work/lossless"
n=0
while IFS= read -r -d '' mp3 && [[ $n -lt 3 ]]; do
    n=$((n + 1))
    mpg123 -q -w "$work/lossless/$n.wav" "$mp3" && flac -s -o "$work/lossless/$n.flac" "$work/lossless/$n.wav" || bad "making $n.flac"
done < <(find "$repo/examples/music" -name '*.mp3' -print0 | sort -z)
export DB=lossless.db
same "scan of FLAC and WAV copies" scan "$work/lossless"
for format in flac wav; do
    run_as arm play --output "wav:$work/arm-$format.wav" --fast "path:.$format" > "$work/arm-play.out" 2>&1
    run_as x86 play --output "wav:$work/x86-$format.wav" --fast "path:.$format" > "$work/x86-play.out" 2>&1
    if result=$(pcm_compare "$work/arm-$format.wav" "$work/x86-$format.wav") && [[ $result != "equal, 0 samples" ]]; then
        ok "play --output wav --fast of the ${format^^} tracks: the x86_64 build's PCM, $result"
    else
        bad "play of the ${format^^} tracks: arm64 and x86_64 differ: $result"; tail -3 "$work/arm-play.out" | sed 's/^/  arm64: /'
    fi
done
same "analyze (FLAC and WAV)" analyze
# Every measured feature of the same PCM: the same within float rounding (1e-4 relative, 1e-4
# absolute near zero): the two builds' libm (exp, log, sin, ...) may differ in the last bit.
python3 - "$work/arm/lossless.db" "$work/x86/lossless.db" > "$work/features.out" 2>&1 <<'EOF'
import sqlite3, struct, sys
def rows(path):
    db = sqlite3.connect(path)
    cols = [c[1] for c in db.execute("PRAGMA table_info(audio_features)") if c[1] != "analyzed"]
    return cols, {r[0]: r for r in db.execute(f"SELECT {','.join(chr(34)+c+chr(34) for c in cols)} FROM audio_features ORDER BY track_id")}
cols, arm = rows(sys.argv[1]); _, x86 = rows(sys.argv[2])
worst, problems, compared = 0.0, [], 0
def close(a, b, what):
    global worst, compared
    compared += 1
    if a is None or b is None:
        if a != b: problems.append(f"{what}: {a!r} / {b!r}")
        return
    d = abs(a - b); scale = max(abs(a), abs(b))
    worst = max(worst, d / scale if scale > 1 else d)
    if d > 1e-4 * max(scale, 1): problems.append(f"{what}: {a!r} / {b!r}")
if sorted(arm) != sorted(x86) or not arm: problems.append(f"tracks analyzed: {sorted(arm)} / {sorted(x86)}")
for tid in sorted(set(arm) & set(x86)):
    for c, a, b in zip(cols, arm[tid], x86[tid]):
        what = f"track {tid} {c}"
        if isinstance(a, bytes) and isinstance(b, bytes) and len(a) % 4 == 0 and c != "histogram":
            fa = struct.unpack(f"<{len(a)//4}f", a); fb = struct.unpack(f"<{len(b)//4}f", b)
            if len(fa) != len(fb): problems.append(what + ": lengths differ")
            for i, (x, y) in enumerate(zip(fa, fb)): close(x, y, f"{what}[{i}]")
        elif isinstance(a, float) or isinstance(b, float): close(a, b, what)
        elif a != b: problems.append(f"{what}: {a!r} / {b!r}"[:200])
print(f"{len(arm)} tracks, {compared} values, largest difference {worst:.1e} (relative, absolute below 1)")
for p in problems[:20]: print("  " + p)
sys.exit(1 if problems else 0)
EOF
if [[ $? -eq 0 ]]; then ok "analyze: the features agree, $(head -1 "$work/features.out")"; else bad "analyze features: $(cat "$work/features.out")"; fi
unset DB

# MP3: libmpg123's decoders round the last bit differently from one another (NEON64 or generic
# C on arm64, AVX, SSE or generic C on x86_64: up to 1 in 32767 on a sample in about a
# thousand; docs/raspberry-pi.md), so each build's MP3 PCM must equal Debian's mpg123 of its
# own architecture on the same file, and the two may differ by that last bit only.
mp3=$(find "$repo/examples/music" -name '*.mp3' | sort | head -1)
title=$(basename "$mp3" .mp3); title=${title#* - }
for side in arm x86; do
    run_as $side play --output "wav:$work/$side-mp3.wav" --fast "title:=\"$title\"" > "$work/$side-play.out" 2>&1
done
# (mpg123.bin: /usr/bin/mpg123 is an alternatives link, which no maintainer script made here.)
arm_run "$root/usr/bin/mpg123.bin" -q --stereo -w "$work/arm-mpg123.wav" "$mp3"
mpg123 -q --stereo -w "$work/x86-mpg123.wav" "$mp3"
for side in arm x86; do
    label=$([[ $side == arm ]] && echo "arm64, trixie's mpg123 $(arm_run "$root/usr/bin/mpg123.bin" --version | cut -d' ' -f2)" || echo "x86_64, this machine's mpg123 $(mpg123 --version | cut -d' ' -f2)")
    if result=$(pcm_compare "$work/$side-mp3.wav" "$work/$side-mpg123.wav"); then
        ok "play --output wav --fast of an MP3 on $label: $result"
    else
        bad "play of an MP3 on $label: songbox and mpg123 differ: $result"; tail -3 "$work/$side-play.out" | sed 's/^/  songbox: /'
    fi
done
result=$(pcm_compare "$work/arm-mp3.wav" "$work/x86-mp3.wav")
if [[ $result == equal* || $result == *"largest difference 1 "* ]]; then
    ok "the same MP3, arm64 against x86_64: $result"
else
    bad "the same MP3, arm64 against x86_64, more than the last bit: $result"
fi

same "run examples/mood-playlist.lua calm 45" run examples/mood-playlist.lua calm 45 --output null --fast

# The daemon, on a free loopback port (never 6600), driven by mpc.
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
cd "$repo"
env HOME="$work/arm/home" XDG_RUNTIME_DIR="$work/arm/run" XDG_CONFIG_HOME="$work/arm/home/.config" \
    XDG_CACHE_HOME="$work/arm/home/.cache" XDG_DATA_HOME="$work/arm/home/.local/share" LC_ALL=C.UTF-8 \
    qemu-aarch64-static -L "$root" "$arm" --db "$work/arm/library.db" daemon --output null --music "$repo/examples/music" \
    --bind "127.0.0.1:$port" > "$work/daemon.log" 2>&1 &
daemon_pid=$!
answered=""
for _ in $(seq 1 120); do
    if status=$(mpc -h 127.0.0.1 -p "$port" status 2>&1); then answered=yes; break; fi
    kill -0 "$daemon_pid" 2>/dev/null || break
    sleep 0.5
done
# Resident memory: the whole qemu process (VmRSS), and the guest's own pages, songbox's: qemu-user
# maps the arm64 program below 2^40 (at most 10 hex digits), its own code, heap and translated
# code above.
rss() {
    awk '/^[0-9a-f]+-/ { split($1, range, "-"); guest = length(range[1]) <= 10 }
         /^Rss:/ { all += $2; if (guest) own += $2 }
         END { printf "%d KiB (qemu in all: %d KiB)", own, all }' "/proc/$daemon_pid/smaps"
}
if [[ -n $answered ]]; then
    ok "daemon on 127.0.0.1:$port answers mpc status: $(echo "$status" | tr '\n' ' ')"
    sleep 3; idle=$(rss)
    mpc -q -h 127.0.0.1 -p "$port" add / && mpc -q -h 127.0.0.1 -p "$port" play
    sleep 5
    playing_status=$(mpc -h 127.0.0.1 -p "$port" status 2>&1); playing=$(rss)
    if [[ $playing_status == *"[playing]"* ]]; then
        ok "daemon plays (mpc add /, play): $(echo "$playing_status" | sed -n 2p)"
    else
        bad "daemon does not play: $playing_status"
    fi
    echo "   resident memory of the arm64 daemon under qemu: idle ${idle}, playing ${playing}"
else
    bad "daemon on 127.0.0.1:$port did not answer mpc status: $status"; tail -20 "$work/daemon.log" | sed 's/^/  daemon: /'
fi
kill "$daemon_pid" 2>/dev/null; wait "$daemon_pid" 2>/dev/null; daemon_pid=""

echo "(pi-check took ${SECONDS} s)"
echo "pi-check: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
