#!/usr/bin/env bash
# Builds geotrigger_VERSION_ARCH.deb (dpkg-deb) in out/: `geotrigger` and `geotrigger-serve` built optimised with the
# Swift runtime linked in (`--static-swift-stdlib`) and stripped, so the target needs no Swift toolchain; the
# systemd unit, the service user (sysusers.d), /etc/geotrigger/{settings,regions}.json as conffiles, the raw-HCI
# drop-in as an example, the docs. Depends: computed from the binaries' NEEDED libraries (each one's Debian package
# through `dpkg -S`, its version bound from that package's shlibs file), plus adduser-free user creation
# (systemd-sysusers, else passwd's useradd). Prints the package's size, its installed size and its largest parts.
#
# VERSION: GEOTRIGGER_VERSION when set; else VERSION's number when HEAD is tagged vNUMBER, otherwise
# NUMBER~gitCOUNT.COMMIT (COUNT: commits in HEAD's history, so later builds of a branch sort higher; `~` sorts before
# the release itself), with .modified appended when tracked files differ from the commit. Both executables are built
# with that version (`geotrigger --version`, `geotrigger serve --version`) and the script checks they print it.
# ARCH: `dpkg --print-architecture`. Nothing here assumes x86-64 (docs/packaging.md: what an arm64 build needs).
set -euo pipefail
cd "$(dirname "$0")/.."
Tools/setup.sh --package
started=$(date +%s)

arch=$(dpkg --print-architecture)
if [ -z "${GEOTRIGGER_VERSION:-}" ]; then
    base=$(cat VERSION)
    if git describe --exact-match --tags --match "v$base" HEAD >/dev/null 2>&1; then
        GEOTRIGGER_VERSION=$base
    else
        GEOTRIGGER_VERSION="$base~git$(git rev-list --count HEAD).$(git rev-parse --short=10 HEAD)"
    fi
    if [ -n "$(git status --porcelain --untracked-files=no)" ]; then
        echo "package: tracked files differ from $(git rev-parse --short=10 HEAD); the version says .modified" >&2
        GEOTRIGGER_VERSION="$GEOTRIGGER_VERSION.modified"
    fi
fi
export GEOTRIGGER_VERSION
version=$GEOTRIGGER_VERSION
case "$version" in
    [0-9]*) ;;
    *) echo "package: version '$version' must start with a digit (Debian's rule)" >&2; exit 2 ;;
esac

build=(swift build -c release --static-swift-stdlib)
for product in geotrigger-serve geotrigger; do
    echo "package: building $product $version (release, static Swift runtime)" >&2
    log=$(mktemp)
    if ! nice "${build[@]}" --product "$product" >"$log" 2>&1; then
        tail -50 "$log" >&2
        echo "package: the build of $product failed" >&2
        exit 1
    fi
    rm -f "$log"
done
bin=$("${build[@]}" --show-bin-path)

for exe in geotrigger geotrigger-serve; do
    printed=$("$bin/$exe" --version)
    if [ "$printed" != "$version" ]; then
        echo "package: $bin/$exe --version printed '$printed', not '$version'" >&2
        exit 1
    fi
done

out=out
mkdir -p "$out"
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
root=$stage/root
mkdir -p "$root/DEBIAN" "$root/usr/bin" "$root/lib/systemd/system" "$root/usr/lib/sysusers.d" "$root/etc/geotrigger" \
    "$root/usr/share/doc/geotrigger/examples"
for exe in geotrigger geotrigger-serve; do
    strip --strip-all -o "$root/usr/bin/$exe" "$bin/$exe"
    # SwiftPM links every executable with RUNPATH $ORIGIN; in /usr/bin nothing is to be found beside it.
    patchelf --remove-rpath "$root/usr/bin/$exe"
    chmod 755 "$root/usr/bin/$exe"
done
install -m 644 Tools/package/geotrigger.service "$root/lib/systemd/system/geotrigger.service"
install -m 644 Tools/package/geotrigger.sysusers "$root/usr/lib/sysusers.d/geotrigger.conf"
install -m 644 Tools/package/settings.json "$root/etc/geotrigger/settings.json"
install -m 644 Tools/package/regions.json "$root/etc/geotrigger/regions.json"
install -m 644 Tools/package/bluetooth-hci.conf "$root/usr/share/doc/geotrigger/examples/bluetooth-hci.conf"
install -m 644 Data/demo-requests.json "$root/usr/share/doc/geotrigger/examples/regions.json"
install -m 644 README.md docs/service.md docs/packaging.md "$root/usr/share/doc/geotrigger/"
install -m 644 Tools/package/copyright "$root/usr/share/doc/geotrigger/copyright"
install -m 755 Tools/package/postinst Tools/package/prerm Tools/package/postrm "$root/DEBIAN/"
printf '%s\n' /etc/geotrigger/settings.json /etc/geotrigger/regions.json >"$root/DEBIAN/conffiles"

# What the binaries load: no Swift runtime, no RUNPATH (into /opt/swift or anywhere), each library from a package.
needed=()
for exe in geotrigger geotrigger-serve; do
    dynamic=$(readelf -d "$root/usr/bin/$exe")
    if grep -qE "\((RUNPATH|RPATH)\)" <<<"$dynamic"; then
        echo "package: $exe has a RUNPATH: $(grep -E 'RUNPATH|RPATH' <<<"$dynamic")" >&2
        exit 1
    fi
    while read -r lib; do needed+=("$lib"); done < <(sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' <<<"$dynamic")
done
mapfile -t needed < <(printf '%s\n' "${needed[@]}" | sort -u)
if printf '%s\n' "${needed[@]}" | grep -E '^lib(swift|Foundation|dispatch|BlocksRuntime|_FoundationICU)'; then
    echo "package: the binaries still need the Swift runtime libraries above" >&2
    exit 1
fi
depends=()
for lib in "${needed[@]}"; do
    path=$(ldconfig -p | awk -v lib="$lib" '$1 == lib && $0 ~ /\(libc6/ { print $NF; exit }')
    [ -n "$path" ] || path=$(ldconfig -p | awk -v lib="$lib" '$1 == lib { print $NF; exit }')
    if [ -z "$path" ]; then echo "package: $lib is not known to ldconfig" >&2; exit 1; fi
    real=$(readlink -f "$path")
    owner=$(dpkg -S "$path" 2>/dev/null || dpkg -S "$real" 2>/dev/null || dpkg -S "${path#/usr}" 2>/dev/null || true)
    pkg=${owner%%:*}
    pkg=${pkg%%,*}
    if [ -z "$pkg" ]; then echo "package: no Debian package owns $path ($lib)" >&2; exit 1; fi
    # The package's shlibs file names the dependency its users need for this soname (what dpkg-shlibdeps reads).
    soname_name=${lib%%.so*}
    soname_version=${lib#*.so.}
    [ "$soname_version" = "$lib" ] && soname_version=
    dep=""
    for shlibs in /var/lib/dpkg/info/"$pkg".shlibs /var/lib/dpkg/info/"$pkg":"$arch".shlibs; do
        [ -f "$shlibs" ] || continue
        dep=$(awk -v n="$soname_name" -v v="$soname_version" '$1 == n && $2 == v { $1 = ""; $2 = ""; sub(/^  /, ""); print; exit }' "$shlibs")
        [ -n "$dep" ] && break
    done
    depends+=("${dep:-$pkg}")
    printf 'package: %-28s %-40s %s\n' "$lib" "$path" "${dep:-$pkg}" >&2
done
depends+=("passwd")
depends_line=$(printf '%s\n' "${depends[@]}" | sort -u | paste -sd, | sed 's/,/, /g')

installed_kib=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
cat >"$root/DEBIAN/control" <<EOF
Package: geotrigger
Version: $version
Architecture: $arch
Maintainer: GeoTrigger maintainers <root@localhost>
Installed-Size: $installed_kib
Depends: $depends_line
Recommends: systemd
Suggests: bluez
Section: net
Priority: optional
Description: geofence and Bluetooth-beacon trigger service
 GeoTrigger evaluates notification requests whose trigger is a circle, a
 polygon or a beacon region against location fixes and beacon sightings from
 many devices, and delivers the notifications they fire (NDJSON, webhook,
 MQTT) through a durable outbox. The package holds the geotrigger command
 (replay, convert, scan) and the geotrigger-serve service with its systemd
 unit; the Swift runtime is linked in.
EOF

deb="$out/geotrigger_${version}_${arch}.deb"
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null

echo "package: $deb"
echo "package: Depends: $depends_line"
printf 'package: .deb %s KiB; installed %s KiB\n' "$(( $(stat -c %s "$deb") / 1024 ))" "$installed_kib"
echo "package: binaries (unstripped -> stripped, KiB):"
for exe in geotrigger geotrigger-serve; do
    printf '  %-18s %8s -> %8s\n' "$exe" "$(( $(stat -c %s "$bin/$exe") / 1024 ))" "$(( $(stat -c %s "$root/usr/bin/$exe") / 1024 ))"
done
echo "package: largest installed files (KiB):"
(cd "$root" && find . -path ./DEBIAN -prune -o -type f -printf '%s %P\n' | sort -rn | head -5 \
    | awk '{ printf "  %8d  /%s\n", $1 / 1024, $2 }')
echo "package: largest parts of geotrigger-serve (symbols, KiB, from the unstripped binary):"
nm --size-sort -S -C -t d "$bin/geotrigger-serve" 2>/dev/null | tail -8 | tac \
    | awk '{ size = $2 + 0; $1 = ""; $2 = ""; $3 = ""; sub(/^ +/, ""); printf "  %8d  %s\n", size / 1024, substr($0, 1, 100) }'
echo "package: sections of geotrigger-serve (KiB):"
size -A "$root/usr/bin/geotrigger-serve" | awk 'NR > 2 && $1 != "Total" && $2 + 0 > 1048576 { printf "  %8d  %s\n", $2 / 1024, $1 }'
echo "package: took $(( $(date +%s) - started )) s"
