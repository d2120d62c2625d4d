#!/usr/bin/env bash
# deb.sh BUILD_DIR VERSION -- the install story: `cmake --install` honours a
# prefix (binary, man page, docs), and the Debian package CPack builds
# declares its runtime dependencies and, unpacked into a scratch root with
# `dpkg -x`, runs from usr/bin.
set -euo pipefail
build=$1 version=$2
work=$(mktemp -d /tmp/uiap-deb-XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$work/prefix" >/dev/null
[ -x "$work/prefix/bin/uiap-crawl" ] || fail "cmake --install: no bin/uiap-crawl under the prefix"
[ -f "$work/prefix/share/man/man1/uiap-crawl.1" ] || fail "cmake --install: no man page"
[ -f "$work/prefix/share/doc/uiap-crawl/exit-codes.md" ] || fail "cmake --install: no docs"

(cd "$build" && cpack -B "$work/pkg" >"$work/cpack.log" 2>&1) || { cat "$work/cpack.log"; fail "cpack"; }
deb=$(ls "$work"/pkg/uiap-crawl_"$version"_*.deb 2>/dev/null | head -1)
[ -n "$deb" ] || fail "no uiap-crawl_${version}_*.deb"
depends=$(dpkg-deb -f "$deb" Depends)
for d in libwebsockets libcjson libxxhash chromium; do
  grep -q "$d" <<<"$depends" || fail "Depends lacks $d: $depends"
done
dpkg -x "$deb" "$work/root"
[ -f "$work/root/usr/share/man/man1/uiap-crawl.1" ] || fail "the .deb has no man page"
out=$("$work/root/usr/bin/uiap-crawl" version)
[ "$out" = "uiap-crawl $version" ] || fail "usr/bin/uiap-crawl version said '$out', the package is $version"
echo "ok: $(basename "$deb"), Depends: $depends; usr/bin/uiap-crawl version: $out"
