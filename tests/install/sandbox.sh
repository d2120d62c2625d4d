#!/usr/bin/env bash
# sandbox.sh BIN FIXTURE -- Chromium keeps its sandbox when the crawler does
# not run as root: a snapshot as user nobody works, says so with --verbose,
# and the browser it started had no --no-sandbox (a wrapper records the
# flags Chromium was given). As root, --no-sandbox is what it says.
set -euo pipefail
bin=$1 page=$2
fail() { echo "FAIL: $*" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || fail "this test switches to user nobody: run it as root (CI is root)"
work=$(mktemp -d /tmp/uiap-sandbox-XXXXXX)
trap 'rm -rf "$work"' EXIT
chmod 777 "$work"
chromium=$(command -v chromium || command -v chromium-browser) || fail "no chromium"
cat >"$work/chromium" <<WRAP
#!/bin/sh
printf '%s\n' "\$@" >"$work/flags.\$\$"
exec "$chromium" "\$@"
WRAP
chmod 755 "$work/chromium"
cp "$page" "$work/page.html"
chmod 644 "$work/page.html"
run_as_nobody() {
  su nobody -s /bin/sh -c "HOME=$work TMPDIR=$work UIAP_CHROMIUM=$work/chromium $bin snapshot file://$work/page.html --verbose -o $work/graph.json" 2>"$work/stderr" ||
    { cat "$work/stderr"; fail "snapshot as nobody with the sandbox failed"; }
}
run_as_nobody
grep -q "starting Chromium with its sandbox" "$work/stderr" || fail "--verbose does not say the sandbox is on: $(cat "$work/stderr")"
grep -q '"elements"' "$work/graph.json" || fail "no PageGraph from the sandboxed browser"
flags=$(cat "$work"/flags.* 2>/dev/null || true)
[ -n "$flags" ] || fail "the wrapper saw no Chromium start"
! grep -qx -- "--no-sandbox" <<<"$flags" || fail "Chromium got --no-sandbox as nobody"
rm -f "$work"/flags.*
UIAP_CHROMIUM=$work/chromium TMPDIR=$work "$bin" snapshot "file://$work/page.html" --verbose -o "$work/root.json" 2>"$work/stderr.root"
grep -q "with --no-sandbox (running as root" "$work/stderr.root" || fail "as root --verbose does not name --no-sandbox"
grep -qx -- "--no-sandbox" <(cat "$work"/flags.*) || fail "as root Chromium did not get --no-sandbox"
echo "ok: as nobody Chromium ran sandboxed; as root with --no-sandbox"
