#!/usr/bin/env bash
# cli_public_only.sh SRCDIR OBJDIR -- the command line (crawler/cli) reaches
# the libraries only through their public headers (curl's src/ and lib/;
# docs/architecture.md). Fails when
#   - a file in SRCDIR/crawler/cli includes a library's private header: a
#     *_int.h other than the CLI's own cli_int.h, a header of a library's
#     private folder, or a crawler-internal one (crawl_util.h,
#     crawl_journal.h, crawl_strmap.h, crawl_secrets.h);
#   - an object file of crawler/cli in OBJDIR refers to a library-internal
#     symbol (`nm -u`): cdp__, pg__, pol__, lsn__, serve__, or a crawl__ one
#     outside the base layer's (crawler/base/crawl_base.h: allocation,
#     buffers, maps, hex, files, order, hash, time);
#   - it finds no object files, or they refer to nothing public (a test
#     that cannot fail is no test).
set -euo pipefail
src=$1
obj=$2
fail=0

# ---- includes ----------------------------------------------------------------
# the private headers of the libraries, by name: every header outside the
# public ones (include/ folders, cdp.h, pg.h, pg_url.h, pol.h, crawl_base.h)
private=$(cd "$src" && find cdp graph policy crawler -name '*.h' \
            -not -path '*/include/*' -not -path 'crawler/cli/*' \
            -not -name cdp.h -not -name pg.h -not -name pg_url.h -not -name pol.h \
            -not -name crawl_base.h -printf '%f\n' | sort -u)
[ -n "$private" ] || { echo "FAIL: no private headers found under $src" >&2; exit 1; }
grep -qx crawl_util.h <<<"$private" || { echo "FAIL: crawl_util.h not among the private headers" >&2; exit 1; }
while IFS= read -r line; do
  file=${line%%:*}
  hdr=$(sed -E 's/.*#[[:space:]]*include[[:space:]]*"([^"]+)".*/\1/' <<<"${line#*:}")
  base=$(basename "$hdr")
  [ "$base" = cli_int.h ] && [ "$hdr" = cli_int.h ] && continue
  if [[ $base == *_int.h ]] || grep -qx "$base" <<<"$private"; then
    echo "FAIL: $file includes a library's private header: $hdr" >&2
    fail=1
  fi
done < <(grep -H -E '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$src"/crawler/cli/*.c "$src"/crawler/cli/*.h)

# ---- symbols -----------------------------------------------------------------
# the base layer's functions (crawler/base/crawl_base.h), the one crawl__
# family the CLI may call
base='^crawl__(x(malloc|calloc|realloc|strdup|strndup|printf)|errf|buf_[a-z_]+|hex_[a-z_]+|file_[a-z_]+|find_on_path|path_inside|natcmp|hash(_bytes)?|time_[a-z_]+|strmap_[a-z_]+|intmap_[a-z_]+)$'
objs=$(find "$obj" -path '*crawler/cli/*' -name '*.o' | sort)
[ -n "$objs" ] || { echo "FAIL: no crawler/cli object files under $obj" >&2; exit 1; }
seen=0
for o in $objs; do
  undef=$(nm -u "$o" | awk 'NF {print $NF}' | sort -u)
  grep -qE '^(crawl|cdp|pg)_[a-z]' <<<"$undef" && seen=1
  bad=$(grep -E '^(cdp__|pg__|pol__|lsn__|serve__|crawl__)' <<<"$undef" | grep -vE "$base" || true)
  if [ -n "$bad" ]; then
    echo "FAIL: $(basename "$o") refers to library internals: $(tr '\n' ' ' <<<"$bad")" >&2
    fail=1
  fi
done
[ "$seen" = 1 ] || { echo "FAIL: the crawler/cli objects refer to no public crawl_/cdp_/pg_ function" >&2; exit 1; }
[ "$fail" = 0 ] || exit 1
echo "ok: $(wc -l <<<"$objs") crawler/cli objects: public headers and symbols only"
