# What the arm64 scripts need of this amd64 machine, sourced by scripts/arm64-toolchain, scripts/debian-root and
# scripts/input-vm:
# Debian's packages they run, the archive they fetch from, the names of what they cache, and the kernel's
# running of arm64 executables through qemu-user. Expects PROG to be set and root to run it.

say() { printf '%s: %s\n' "$PROG" "$*" >&2; }
die() {
    say "$*"
    exit 1
}

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }

# Installs those of the packages $@ that are missing. The arm64 scripts install their own host packages,
# not scripts/setup, which the amd64 build and its tests run.
arm64_host_packages() {
    local package missing=()
    for package in "$@"; do installed "$package" || missing+=("$package"); done
    ((${#missing[@]})) || return 0
    say "installing ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# The Debian archive the system's apt sources name: the one serving this system's own release.
arm64_mirror() {
    local codename mirror
    codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
    mirror=$(apt-get indextargets --format '$(REPO_URI) $(RELEASE)' 2>/dev/null | awk -v suite="$codename" '$2 == suite { print $1; exit }')
    mirror=${mirror:-http://deb.debian.org/debian/}
    echo "${mirror%/}"
}

# A short name for what the arguments describe: cached things are named by the hash of their recipe.
cache_key() { printf '%s\n' "$@" | sha256sum | cut -c1-16; }

# Lets the kernel run arm64 executables anywhere, in a chroot too, through qemu-user-static: what
# systemd-binfmt does at boot on a Debian machine with qemu-user-static (its /usr/lib/binfmt.d entry),
# done here when it has not been (a container, a machine without systemd). The F flag opens the
# interpreter now, so that a root without qemu in it runs arm64 executables too. It stays registered, as
# the package's own registration would: only arm64 executables, which nothing here runs otherwise, see it.
arm64_binfmt() {
    local dir=/proc/sys/fs/binfmt_misc entry=/usr/lib/binfmt.d/qemu-aarch64.conf
    [[ -f $dir/register ]] || mount -t binfmt_misc binfmt_misc "$dir" || die "cannot mount binfmt_misc on $dir"
    if [[ ! -f $dir/qemu-aarch64 ]]; then
        [[ -f $entry ]] || die "$entry is missing: qemu-user-static installs it"
        say "registering qemu-aarch64 with binfmt_misc ($entry)"
        cat "$entry" >"$dir/register"
    fi
    grep -qx enabled "$dir/qemu-aarch64" && grep -q '^flags: .*F' "$dir/qemu-aarch64" ||
        die "$dir/qemu-aarch64 is disabled or lacks the F flag: arm64 executables in a root would not run"
}
