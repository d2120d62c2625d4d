#!/usr/bin/env python3
"""state-f1.py -- how well a crawl's states match a human grouping of pages
into functional states (docs/fingerprint.md "Measuring"): pairwise
precision, recall and F1 over the captured pages.

usage: state-f1.py LABELS OUT_DIR [--json] [--min-f1 X]

LABELS: lines "path[?query]<TAB>state" (# comments), paths relative to the
server (tests/fixtures/clinic/labels.tsv). OUT_DIR: a crawl's output
directory (its journal.jsonl). Every page the crawl captured -- a seed, a
state's own page, the page an action landed on -- is one item: (the URL's
path and query, the state the crawler put it in); an item whose URL has no
label is listed and left out. Two items are a pair of the crawl when the
crawler put them in one state, a pair of the humans when the labels do;
precision = |both| / |crawl's|, recall = |both| / |humans'|.
Exit 0, or 1 when --min-f1 is given and F1 is below it; 2 on bad input."""
import json
import sys
from itertools import combinations
from urllib.parse import urlsplit


def rel(url):
    u = urlsplit(url)
    return u.path + ("?" + u.query if u.query else "")


def items_of(journal):
    items = set()
    for line in open(journal, encoding="utf-8"):
        try:
            d = json.loads(line)
        except ValueError:
            continue  # a torn last line
        t = d.get("type")
        if t in ("seed", "state") and d.get("url") and d.get("stateId"):
            items.add((rel(d["url"]), d["stateId"]))
        elif t == "transition" and isinstance(d.get("route"), dict) and d["route"].get("url"):
            items.add((rel(d["route"]["url"]), d["toStateId"]))
    return items


def pairwise(items, labels):
    tp = fp = fn = 0
    for (u1, s1), (u2, s2) in combinations(sorted(items), 2):
        same_c, same_h = s1 == s2, labels[u1] == labels[u2]
        tp += same_c and same_h
        fp += same_c and not same_h
        fn += same_h and not same_c
    p = tp / (tp + fp) if tp + fp else 1.0
    r = tp / (tp + fn) if tp + fn else 1.0
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--")]
    if len(args) != 2:
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    min_f1 = None
    if "--min-f1" in argv:
        min_f1 = float(argv[argv.index("--min-f1") + 1])
        args = [a for a in args if a != argv[argv.index("--min-f1") + 1]]
    labels = {}
    for line in open(args[0], encoding="utf-8"):
        if line.strip() and not line.startswith("#"):
            path, state = line.rstrip("\n").split("\t")
            labels[path] = state
    items = items_of(args[1] + "/journal.jsonl")
    unlabelled = sorted({u for u, _ in items if u not in labels})
    items = {i for i in items if i[0] in labels}
    p, r, f1 = pairwise(items, labels)
    one = pairwise({(u, "all") for u, _ in items}, labels)
    res = {"items": len(items), "pages": len({u for u, _ in items}), "crawlStates": len({s for _, s in items}),
           "humanStates": len({labels[u] for u, _ in items}), "precision": round(p, 3), "recall": round(r, 3),
           "f1": round(f1, 3), "oneStateF1": round(one[2], 3), "unlabelled": unlabelled}
    if "--json" in argv:
        print(json.dumps(res))
    else:
        print(f"{res['items']} items ({res['pages']} pages) in {res['crawlStates']} crawl states, "
              f"{res['humanStates']} human states: precision {p:.3f} recall {r:.3f} F1 {f1:.3f} "
              f"(all in one state: F1 {one[2]:.3f})")
        for u in unlabelled:
            print(f"  unlabelled: {u}")
    return 1 if min_f1 is not None and f1 < min_f1 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
