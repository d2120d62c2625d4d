#!/usr/bin/env bash
# nm_package.sh LIB -- the package library (crawler/package) reads journals
# and packages without a browser stack: nothing in it refers to cdp or
# libwebsockets. Fails when `nm -u` shows a cdp_ or lws_ symbol, and when it
# shows nothing at all (a test that cannot fail is no test).
set -euo pipefail
lib=$1
undef=$(nm -u "$lib" | awk 'NF {print $NF}' | sort -u)
[ -n "$undef" ] || { echo "FAIL: nm -u $lib printed nothing" >&2; exit 1; }
grep -q '^cJSON_' <<<"$undef" || { echo "FAIL: expected cJSON_ references in $lib" >&2; exit 1; }
bad=$(grep -E '^(cdp_|cdp__|lws_)' <<<"$undef" || true)
if [ -n "$bad" ]; then echo "FAIL: $lib refers to the browser stack:" >&2; echo "$bad" >&2; exit 1; fi
echo "ok: $(wc -l <<<"$undef") undefined symbols in $(basename "$lib"), none cdp_ or lws_"
