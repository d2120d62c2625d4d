#!/usr/bin/env bash
# standalone.sh SRC -- a clone of the project alone builds: the tracked files
# of SRC copied to a scratch folder with no sibling shared/, configured
# without tests, built; `validate` accepts a valid PageGraph and rejects an
# invalid one with exit 11.
set -euo pipefail
src=$1
work=$(mktemp -d /tmp/uiap-alone-XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
mkdir "$work/uiap-crawl"
git -C "$src" ls-files -z | (cd "$src" && xargs -0 tar -cf -) | tar -C "$work/uiap-crawl" -xf -
[ ! -e "$work/shared" ] || fail "scratch folder has a shared/"
cmake -S "$work/uiap-crawl" -B "$work/build" -DUIAP_TESTS=OFF >"$work/configure.log" 2>&1 ||
  { cat "$work/configure.log"; fail "configure without ../shared"; }
cmake --build "$work/build" -j "$(nproc)" --target uiap-crawl >"$work/build.log" 2>&1 ||
  { tail -30 "$work/build.log"; fail "build without ../shared"; }
bin=$work/build/uiap-crawl
good=$work/uiap-crawl/tests/fixtures/journals/states/s1.json
"$bin" validate "$good" >/dev/null || fail "validate rejected $good (exit $?)"
sed 's/"profile": *"[^"]*"/"profile": 42/' "$good" >"$work/bad.json"
grep -q '"profile": *42' "$work/bad.json" || fail "could not make the invalid PageGraph"
set +e
"$bin" validate "$work/bad.json" >"$work/bad.out" 2>&1
rc=$?
set -e
[ $rc -eq 11 ] || { cat "$work/bad.out"; fail "validate of an invalid PageGraph exited $rc, not 11"; }
grep -q '/profile' "$work/bad.out" || fail "the error does not name /profile: $(cat "$work/bad.out")"
echo "ok: built alone in $work; validate: valid 0, invalid 11 ($(head -1 "$work/bad.out"))"
