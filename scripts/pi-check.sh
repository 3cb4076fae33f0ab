#!/usr/bin/env bash
# The arm64 songbox (.build/pi/songbox, from `make pi`) run under qemu-aarch64 on this x86_64
# machine, beside the x86_64 build, on the example library:
#   --version; scan; ls with a Hebrew query; play --output wav:FILE --fast (the PCM must be
#   byte for byte the x86 build's); run examples/mood-playlist.lua calm 45; analyze (every
#   feature within float rounding of the x86 build's); a daemon on a free loopback port that
#   answers `mpc status`, and its resident memory idle and playing.
# The arm64 libraries come from the sysroot `make pi` made ($PI_BUILD/sysroot-arm64, qemu's -L).
#   scripts/pi-check.sh           # or: make pi-check
# Prints "N passed, N failed" at the end; exit status 1 if anything failed.
set -uo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
PI_BUILD=${PI_BUILD:-$(dirname "$repo")/pi-build}
arm=$repo/.build/pi/songbox
x86=${X86_SONGBOX:-$repo/.build/debug/songbox}
root=$PI_BUILD/sysroot-arm64
passed=0 failed=0
ok() { echo "ok: $*"; passed=$((passed + 1)); }
bad() { echo "FAILED: $*"; failed=$((failed + 1)); }

[[ -x $arm ]] || { echo "pi-check: $arm is missing: make pi first" >&2; exit 1; }
[[ -d $root ]] || { echo "pi-check: $root is missing: make pi first" >&2; exit 1; }
need=()
command -v qemu-aarch64-static >/dev/null || need+=(qemu-user-static)
command -v mpc >/dev/null || need+=(mpc)
command -v python3 >/dev/null || need+=(python3)
if [[ ${#need[@]} -gt 0 ]]; then
    apt-get update -qq && apt-get install -y -qq --no-install-recommends "${need[@]}" >&2
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
# Each build gets a home of its own (config, cache, runtime folder): nothing of the user's is read.
for side in arm x86; do mkdir -p "$work/$side/home" "$work/$side/run" && chmod 700 "$work/$side/run"; done
run_as() { # SIDE ARGS... : one songbox command, on that side's library
    local side=$1; shift
    local -a cmd=("$x86")
    [[ $side == arm ]] && cmd=(qemu-aarch64-static -L "$root" "$arm")
    (cd "$repo" && env HOME="$work/$side/home" XDG_RUNTIME_DIR="$work/$side/run" XDG_CONFIG_HOME="$work/$side/home/.config" \
        XDG_CACHE_HOME="$work/$side/home/.cache" XDG_DATA_HOME="$work/$side/home/.local/share" \
        SONGBOX_DB="$work/$side/library.db" LC_ALL=C.UTF-8 "${cmd[@]}" "$@")
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

echo "== arm64: $(file -b "$arm" | cut -d, -f1-2), $(du -h "$arm" | cut -f1)"
version=$(run_as arm --version 2>&1)
if [[ $? -eq 0 && $version == "$(run_as x86 --version 2>&1)" ]]; then ok "--version: $version"; else bad "--version: $version"; fi

same "scan examples/music" scan examples/music
same "ls" ls
same "ls title:אהבה" ls 'title:אהבה'
count=$(run_as arm ls 'title:אהבה' 2>/dev/null | tail -n +2 | grep -c .)
[[ $count -ge 2 ]] && ok "ls title:אהבה found $count tracks (niqqud ignored)" || bad "ls title:אהבה found $count tracks"

# The PCM: every track of the library rendered to WAV by each build, compared byte for byte.
query=(sort:artist,album,title)
start=$(date +%s.%N)
run_as arm play --output "wav:$work/arm.wav" --fast "${query[@]}" > "$work/arm-play.out" 2>&1
arm_play=$(echo "$(date +%s.%N) - $start" | bc)
run_as x86 play --output "wav:$work/x86.wav" --fast "${query[@]}" > "$work/x86-play.out" 2>&1
if [[ -s $work/arm.wav ]] && cmp -s "$work/arm.wav" "$work/x86.wav"; then
    ok "play --output wav --fast: the same $(stat -c %s "$work/arm.wav") bytes of WAV as x86_64 ($(printf %.1f "$arm_play") s under qemu)"
else
    bad "play --output wav --fast: the WAV files differ ($(stat -c %s "$work/arm.wav" 2>/dev/null) and $(stat -c %s "$work/x86.wav" 2>/dev/null) bytes; $(cmp "$work/arm.wav" "$work/x86.wav" 2>&1 | head -1))"
    tail -5 "$work/arm-play.out" | sed 's/^/  arm64: /'
fi

same "analyze" analyze
# Every measured feature: the same within float rounding (1e-4 relative, 1e-3 absolute at zero).
python3 - "$work/arm/library.db" "$work/x86/library.db" > "$work/features.out" 2>&1 <<'EOF'
import math, sqlite3, struct, sys
def rows(path):
    db = sqlite3.connect(path)
    cols = [c[1] for c in db.execute("PRAGMA table_info(audio_features)") if c[1] not in ("analyzed",)]
    return cols, {r[0]: r for r in db.execute(f"SELECT {','.join(chr(34)+c+chr(34) for c in cols)} FROM audio_features ORDER BY track_id")}
cols, arm = rows(sys.argv[1]); _, x86 = rows(sys.argv[2])
worst, problems = 0.0, []
def close(a, b, what):
    global worst
    if a is None or b is None:
        if a != b: problems.append(f"{what}: {a!r} / {b!r}")
        return
    d = abs(a - b); scale = max(abs(a), abs(b))
    worst = max(worst, d / scale if scale > 1e-3 else d)
    if d > max(1e-4 * scale, 1e-3 if scale < 1e-3 else 0): problems.append(f"{what}: {a!r} / {b!r}")
if sorted(arm) != sorted(x86) or not arm: problems.append(f"tracks analyzed: {sorted(arm)} / {sorted(x86)}")
for tid in sorted(set(arm) & set(x86)):
    for c, a, b in zip(cols, arm[tid], x86[tid]):
        what = f"track {tid} {c}"
        if isinstance(a, bytes) and c == "vector":
            fa = struct.unpack(f"<{len(a)//4}f", a); fb = struct.unpack(f"<{len(b)//4}f", b)
            if len(fa) != len(fb): problems.append(what + ": lengths differ")
            for i, (x, y) in enumerate(zip(fa, fb)): close(x, y, f"{what}[{i}]")
        elif isinstance(a, float) or isinstance(b, float): close(a, b, what)
        elif a != b and c != "histogram": problems.append(f"{what}: {a!r} / {b!r}")
        elif a != b: problems.append(f"{what}: the loudness histograms differ")
print(f"{len(arm)} tracks, {len(cols)} columns, largest relative difference {worst:.2e}")
for p in problems[:20]: print("  " + p)
sys.exit(1 if problems else 0)
EOF
if [[ $? -eq 0 ]]; then ok "analyze features agree: $(head -1 "$work/features.out")"; else bad "analyze features: $(cat "$work/features.out")"; fi

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
rss() { awk '/^VmRSS/ {print $2}' "/proc/$daemon_pid/status"; }
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
    echo "resident memory under qemu-aarch64 (VmRSS of the qemu process, guest and emulator): idle ${idle} KiB, playing ${playing} KiB"
else
    bad "daemon on 127.0.0.1:$port did not answer mpc status: $status"; tail -20 "$work/daemon.log" | sed 's/^/  daemon: /'
fi
kill "$daemon_pid" 2>/dev/null; wait "$daemon_pid" 2>/dev/null; daemon_pid=""

echo "pi-check: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
