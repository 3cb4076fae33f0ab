#!/usr/bin/env bash
# Builds songbox for a 64-bit Raspberry Pi (aarch64-unknown-linux-gnu, Debian 13 trixie or the
# Raspberry Pi OS made from it) on an x86_64 Debian machine, from Debian's packages only, by
# cross-compiling: no emulation runs the compiler (an emulated compiler is more than ten times slower:
# docs/raspberry-pi.md measures both ways, and says why sid's Swift and not trixie's).
#
#   scripts/make-pi.sh            # or: make pi (it says how long each step took)
#
# What it keeps, in $PI_BUILD (default: a folder `pi-build` beside the project folder, outside
# any git tree; about 6 GB), so that a second run rebuilds only what changed:
#   toolchain-sid-amd64/  Debian sid for amd64 (debootstrap), with Debian's `swiftlang`. Swift
#                         6.2.3 is sid's; trixie's 6.0.3 cannot read the dependencies' manifests
#                         (swift-tools-version 6.1 and 6.2), see docs/raspberry-pi.md.
#   sysroot-arm64/        trixie's arm64 -dev packages (libc, libstdc++, Lua, SQLite, ALSA,
#                         mpg123, FLAC, Vorbis, Opus, faad2) unpacked, and the arm64 Swift
#                         runtime and modules of the same swiftlang version (sid's arm64 package,
#                         its lib/swift and lib/swift_static only).
#   sdk/                  the Swift SDK (artifact bundle) that points SwiftPM at the sysroot.
#   build-arm64/          SwiftPM's build folder.
#   apt-*/                the private apt lists and downloaded packages (scripts/pi-apt.sh).
# The result is .build/pi/songbox: the Swift runtime linked in (--static-swift-stdlib), its
# symbols stripped (the unstripped one stays in build-arm64/, for a debugger); on the Pi
# it needs only trixie's liblua5.4-0, libsqlite3-0, libasound2t64, libmpg123-0t64, libflac14,
# libvorbisfile3, libopusfile0, libfaad2 and libc/libstdc++.
#
# Needs root (debootstrap, chroot, bind mounts): run as a user, it runs itself through sudo.
# Run again, it reuses what is there.
# PI_CONFIG=debug for a debug build.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
PI_BUILD=${PI_BUILD:-$(dirname "$repo")/pi-build}
PI_CONFIG=${PI_CONFIG:-release}
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
# The Swift of the toolchain and of the arm64 runtime must be the very same build.
SWIFT_DEB_VERSION=${SWIFT_DEB_VERSION:-6.2.3-1+b1}
# What songbox links (Package.swift's system libraries), as trixie arm64 -dev packages, and what
# the Swift runtime links against (libc, libstdc++, libgcc).
SYSROOT_PACKAGES=(libc6-dev libgcc-14-dev libstdc++-14-dev linux-libc-dev
    liblua5.4-dev libsqlite3-dev libasound2-dev libmpg123-dev libflac-dev libvorbis-dev
    libopusfile-dev libopus-dev libogg-dev libfaad-dev
    zlib1g-dev)  # zlib: the static Foundation links -lz

toolchain=$PI_BUILD/toolchain-sid-amd64
sysroot=$PI_BUILD/sysroot-arm64
start=$(date +%s)
say() { printf '[make-pi %4ds] %s\n' $(($(date +%s) - start)) "$*" >&2; }

# debootstrap, chroot and the bind mounts need root: as scripts/install-deps.sh, through sudo.
[[ $(id -u) -eq 0 ]] || exec sudo --preserve-env=PI_BUILD,PI_CONFIG,PI_JOBS,DEBIAN_MIRROR,SWIFT_DEB_VERSION "$0" "$@"
[[ $(uname -m) == x86_64 ]] || { echo "make-pi.sh: made for an x86_64 build machine" >&2; exit 1; }
mkdir -p "$PI_BUILD"
# From nothing it writes about 6 GB (the toolchain 4.1 GB, the sysroot 1.2 GB, the build folder).
free_gb=$(df -BG --output=avail "$PI_BUILD" | tail -1 | tr -dc 0-9)
[[ -f $PI_BUILD/sysroot-arm64/.complete || $free_gb -ge 8 ]] ||
    { echo "make-pi.sh: $PI_BUILD has ${free_gb} GB free; a first build needs about 8 GB" >&2; exit 1; }

need=()
command -v debootstrap >/dev/null || need+=(debootstrap)
[[ -f $KEYRING ]] || need+=(debian-archive-keyring)
if [[ ${#need[@]} -gt 0 ]]; then
    say "installing ${need[*]}"
    apt-get update -qq && apt-get install -y -qq --no-install-recommends "${need[@]}" >&2
fi

. "$repo/scripts/pi-apt.sh"

# 1. The compiler: Debian sid amd64 with swiftlang, in a folder to chroot into.
if [[ ! -x $toolchain/usr/libexec/swift/bin/swift-build ]]; then
    if [[ ! -f $toolchain/.debootstrapped ]]; then
        say "debootstrap sid amd64 into $toolchain"
        rm -rf "$toolchain"
        debootstrap --variant=minbase --include=ca-certificates sid "$toolchain" "$MIRROR" >&2
        touch "$toolchain/.debootstrapped"
    fi
    say "installing swiftlang $SWIFT_DEB_VERSION in it (about 560 MB)"
    echo 'Acquire::Check-Valid-Until "false";' > "$toolchain/etc/apt/apt.conf.d/99songbox-pi"
    cp /etc/resolv.conf "$toolchain/etc/resolv.conf"
    chroot "$toolchain" apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive chroot "$toolchain" apt-get install -y -qq --no-install-recommends \
        "swiftlang=$SWIFT_DEB_VERSION" libc6-dev git pkg-config >&2
fi

# 2. The arm64 sysroot: trixie's -dev packages unpacked (no maintainer scripts run: nothing of
# arm64 is executed), and the arm64 Swift runtime of the same swiftlang build.
if [[ ! -f $sysroot/.complete ]]; then
    say "arm64 sysroot: trixie's ${SYSROOT_PACKAGES[*]}"
    private_apt trixie-arm64 arm64 "$MIRROR trixie main"
    rm -rf "$sysroot"
    unpack_packages trixie-arm64 "$sysroot" "${SYSROOT_PACKAGES[@]}"
    say "arm64 sysroot: the Swift runtime and modules of swiftlang:arm64 $SWIFT_DEB_VERSION (about 510 MB to fetch)"
    private_apt sid-swift arm64 "$MIRROR sid main"
    deb=$PI_BUILD/apt-sid-swift/swiftlang_arm64.deb
    if [[ ! -s $deb ]]; then
        (cd "$PI_BUILD/apt-sid-swift" && APT_CONFIG=$PI_BUILD/apt-sid-swift/apt.conf apt-get download -qq "swiftlang:arm64=$SWIFT_DEB_VERSION" >&2)
        mv "$PI_BUILD"/apt-sid-swift/swiftlang_*_arm64.deb "$deb"
    fi
    dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$sysroot" --wildcards './usr/libexec/swift/lib/swift/*' './usr/libexec/swift/lib/swift_static/*' './usr/libexec/swift/lib/clang/*'
    # Where the driver looks for them at link time (swiftrt.o): usr/lib/swift{,_static}.
    ln -sfn ../libexec/swift/lib/swift "$sysroot/usr/lib/swift"
    ln -sfn ../libexec/swift/lib/swift_static "$sysroot/usr/lib/swift_static"
    touch "$sysroot/.complete"
fi

# 3. The Swift SDK: the sysroot, the arm64 runtime beside it, lld (Debian's swiftlang has it; the
# machine's binutils link amd64 only). Paths are as the chroot sees them.
sdk=$PI_BUILD/sdk/songbox-pi.artifactbundle
mkdir -p "$sdk/trixie-arm64"
cat > "$sdk/info.json" <<'EOF'
{
  "schemaVersion": "1.0",
  "artifacts": {
    "songbox-pi": {
      "type": "swiftSDK",
      "version": "1",
      "variants": [{ "path": "trixie-arm64", "supportedTriples": ["x86_64-unknown-linux-gnu", "x86_64-pc-linux-gnu"] }]
    }
  }
}
EOF
cat > "$sdk/trixie-arm64/swift-sdk.json" <<'EOF'
{
  "schemaVersion": "4.0",
  "targetTriples": {
    "aarch64-unknown-linux-gnu": {
      "sdkRootPath": "/sysroot",
      "swiftResourcesPath": "/sysroot/usr/libexec/swift/lib/swift",
      "swiftStaticResourcesPath": "/sysroot/usr/libexec/swift/lib/swift_static",
      "toolsetPaths": ["toolset.json"]
    }
  }
}
EOF
cat > "$sdk/trixie-arm64/toolset.json" <<'EOF'
{
  "schemaVersion": "1.0",
  "swiftCompiler": { "extraCLIOptions": ["-use-ld=lld"] }
}
EOF

# 4. Build, in the chroot, with the project, the sysroot, the SDK and the build folder bound in.
mounts=()
bind() { # FROM TO [ro]
    mkdir -p "$toolchain$2"
    mount --bind "$1" "$toolchain$2"
    [[ ${3:-} == ro ]] && mount -o remount,bind,ro "$toolchain$2"
    mounts=("$toolchain$2" "${mounts[@]}")
}
unbind() { for m in "${mounts[@]}"; do umount "$m" 2>/dev/null || umount -l "$m"; done; mounts=(); }
trap unbind EXIT
# The project is copied (without .build), so that SwiftPM's Package.resolved and .swiftpm in the
# chroot are its own; tar keeps the times, so an unchanged file is not compiled again.
mkdir -p "$PI_BUILD/build-arm64" "$PI_BUILD/src"
find "$PI_BUILD/src" -mindepth 1 -maxdepth 1 ! -name Package.resolved ! -name .swiftpm -exec rm -rf {} +
tar -C "$repo" --exclude=./.build --exclude='./.build-*' --exclude='./.build_*' --exclude=./.git --exclude=./Package.resolved -c . | tar -C "$PI_BUILD/src" -x
bind /proc /proc
bind /dev /dev
bind "$PI_BUILD/src" /src
bind "$sysroot" /sysroot ro
bind "$PI_BUILD/sdk" /sdk ro
bind "$PI_BUILD/build-arm64" /scratch
# A machine that reads github.com from local copies (git's url.<path>.insteadOf) lends them.
: > "$toolchain/etc/gitconfig"
while read -r key value; do
    local_path=${key#url.}; local_path=${local_path%.insteadof}
    if [[ -d $local_path ]]; then
        bind "$local_path" "$local_path" ro
        chroot "$toolchain" git config --system --add "url.$local_path.insteadOf" "$value"
    fi
done < <(git config --get-regexp '^url\..*\.insteadof$' 2>/dev/null || true)
cp /etc/resolv.conf "$toolchain/etc/resolv.conf"

say "toolchain: $(chroot "$toolchain" swift --version 2>/dev/null | head -1)"
say "swift build -c $PI_CONFIG for aarch64-unknown-linux-gnu"
build_start=$(date +%s)
# pkg-config reads the arm64 .pc files, and prefixes their paths with the sysroot.
chroot "$toolchain" env HOME=/scratch/home TMPDIR=/scratch/tmp \
    PKG_CONFIG_LIBDIR=/sysroot/usr/lib/aarch64-linux-gnu/pkgconfig:/sysroot/usr/share/pkgconfig \
    PKG_CONFIG_PATH=/sysroot/usr/lib/aarch64-linux-gnu/pkgconfig:/sysroot/usr/share/pkgconfig \
    PKG_CONFIG_SYSROOT_DIR=/sysroot sh -c 'mkdir -p "$HOME" "$TMPDIR" && cd /src && exec "$@"' sh \
    swift build -c "$PI_CONFIG" --product songbox --static-swift-stdlib \
    --scratch-path /scratch --swift-sdks-path /sdk --swift-sdk songbox-pi \
    ${PI_JOBS:+--jobs "$PI_JOBS"}
build_seconds=$(($(date +%s) - build_start))
unbind

built=$PI_BUILD/build-arm64/aarch64-unknown-linux-gnu/$PI_CONFIG/songbox
mkdir -p "$repo/.build/pi"
# Stripped with the toolchain's llvm-objcopy (the machine's binutils read x86 only): the SD card
# gets the program without its symbol table. Owned by whoever ran make, not root.
cp "$built" "$toolchain/tmp/songbox-arm64"
chroot "$toolchain" /usr/libexec/swift/bin/llvm-objcopy --strip-all /tmp/songbox-arm64
mv "$toolchain/tmp/songbox-arm64" "$repo/.build/pi/songbox"
[[ -n ${SUDO_UID:-} ]] && chown -R "$SUDO_UID:$SUDO_GID" "$repo/.build/pi"
say "built $repo/.build/pi/songbox: $(file -b "$repo/.build/pi/songbox" | cut -d, -f1-2), $(du -m "$repo/.build/pi/songbox" | cut -f1) MB ($(du -m "$built" | cut -f1) MB before stripping)"
echo "make-pi: the swift build took ${build_seconds} s; everything, $(($(date +%s) - start)) s"
