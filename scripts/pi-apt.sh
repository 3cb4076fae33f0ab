# Sourced by scripts/make-pi.sh and scripts/pi-check.sh: a private apt for Debian's packages of
# another release or architecture, with its own lists and cache in $PI_BUILD/apt-NAME, which
# leaves the machine's own apt alone. Needs PI_BUILD, MIRROR and KEYRING set.

# private_apt NAME ARCH SOURCES...: make $PI_BUILD/apt-NAME and read its package lists.
# Check-Valid-Until off: sid's Release files can be older than their Valid-Until on a mirror.
private_apt() {
    local dir=$PI_BUILD/apt-$1 arch=$2; shift 2
    mkdir -p "$dir"/{etc/apt/apt.conf.d,etc/apt/preferences.d,etc/apt/sources.list.d,var/lib/apt/lists/partial,var/cache/apt/archives/partial,var/lib/dpkg}
    touch "$dir/var/lib/dpkg/status"
    printf 'deb [arch=%s signed-by=%s] %s\n' "$arch" "$KEYRING" "$@" > "$dir/etc/apt/sources.list"
    cat > "$dir/apt.conf" <<CONF
Dir "$dir/";
Dir::State::status "$dir/var/lib/dpkg/status";
APT::Architecture "$arch";
APT::Architectures { "$arch"; };
APT::Install-Recommends "false";
Acquire::Check-Valid-Until "false";
APT::Sandbox::User "root";
CONF
    APT_CONFIG=$dir/apt.conf apt-get update -qq >&2
}

# unpack_packages NAME ROOT PACKAGES...: download PACKAGES and everything they depend on (the
# private status file is empty, so that is all of it down to libc6) and unpack them into ROOT with
# dpkg-deb: no maintainer script runs, so nothing of another architecture is executed.
unpack_packages() {
    local name=$1 root=$2; shift 2
    local archives=$PI_BUILD/apt-$name/var/cache/apt/archives
    APT_CONFIG=$PI_BUILD/apt-$name/apt.conf apt-get install --download-only -y -qq "$@" >&2
    mkdir -p "$root/usr/lib" "$root/usr/bin" "$root/usr/sbin"
    for link in lib bin sbin; do [[ -e $root/$link ]] || ln -s "usr/$link" "$root/$link"; done
    for deb in "$archives"/*.deb; do dpkg-deb -x "$deb" "$root"; done
}
