#!/usr/bin/env python3
"""Check the bounds of a validation case against the JSON written by a scripts/compare_*.py script.

Usage: scripts/validation_check.py COMPARE.json 'errors.ux.DSMC.max<=0.12' 'scalars.CD.value>=1.5' ...

Each bound is a dotted path into the JSON, then <= or >=, then a number. Prints one line per bound and
exits 1 when any bound fails or a path is missing, 2 on a malformed bound.
"""
import json
import re
import sys


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    with open(sys.argv[1]) as f:
        data = json.load(f)
    failed = 0
    for bound in sys.argv[2:]:
        m = re.fullmatch(r"([A-Za-z0-9_.]+)(<=|>=)([-+0-9.eE]+)", bound)
        if not m:
            print("validation_check: malformed bound '%s' (want PATH<=NUMBER or PATH>=NUMBER)" % bound,
                  file=sys.stderr)
            return 2
        path, op, limit = m.group(1), m.group(2), float(m.group(3))
        node = data
        for part in path.split("."):
            if not isinstance(node, dict) or part not in node:
                node = None
                break
            node = node[part]
        if not isinstance(node, (int, float)):
            print("FAIL %s: no number at '%s' in %s" % (bound, path, sys.argv[1]))
            failed += 1
            continue
        ok = node <= limit if op == "<=" else node >= limit
        print("%s %s = %.6g (bound %s %g)" % ("ok  " if ok else "FAIL", path, node, op, limit))
        failed += 0 if ok else 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
