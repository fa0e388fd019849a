#!/usr/bin/env bash
# Checks that the documents cited in the code exist under docs/ and have the cited headings.
#
# Usage: scripts/check_citations.sh [-v] [PATH ...]
#   PATH   files or folders to scan, relative to the repository root (default: src include tests scripts)
#   -v     also list every citation that resolves
# Exit 0 when every citation resolves, 1 when one does not (each listed as file:line: citation: problem),
# 2 on a usage error.
#
# Citations understood (in any text file; tests/data is skipped):
#   docs/NAME.md                       the file docs/NAME.md must exist; a path through a folder "shared/"
#                                      is outside the repository and an error
#   NAME.md                            a citation of docs/NAME.md when that exists or when one of the
#                                      targets below follows; otherwise another file (README.md,
#                                      SOURCE.md, an output such as report.md) and not checked;
#                                      ugks-formulation.md is always an error (now docs/formulation.md)
#   NAME.md section 5.10, sections 4.2-4.3, sections 1-6 and 10, § 9, NAME.md 7.3, NAME.md b3
#                                      every cited number or label is the first word of a heading of
#                                      docs/NAME.md ("### 5.10 ...", "## 5. ...", "### b3 ...")
#   NAME.md, "Heading text"            a heading (or a **bold** term) of docs/NAME.md contains the text
#   decision U7, decisions U1-U10, U2b a heading "### U7 ..." of docs/formulation.md
#   (5.10a), eq. (7a), NAME.md (5.10a) an equation tag of docs/formulation.md (or of the named document);
#                                      tags without a doc name are checked in the dotted form (5.10a)
#                                      and after "eq." only
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
verbose=0
paths=()
for a in "$@"; do
  case "$a" in
    -v) verbose=1 ;;
    -h|--help) sed -n '2,8p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "check_citations: unknown option $a" >&2; exit 2 ;;
    *) paths+=("$a") ;;
  esac
done
[[ ${#paths[@]} -gt 0 ]] || paths=(src include tests scripts)
cd "$root"
exec /usr/bin/python3 - "$verbose" "${paths[@]}" <<'PY'
import os, re, sys

verbose = sys.argv[1] == "1"
paths = sys.argv[2:]
NOT_DOCS = {"README", "SOURCE", "COPIED", "CHANGELOG", "LICENSE"}
RETIRED = {"ugks-formulation": "docs/formulation.md"}
SKIP_DIRS = {".git", "build", "tests/data"}
BINARY_EXT = (".png", ".jpg", ".jpeg", ".gif", ".pdf", ".msh", ".h5", ".cgns", ".gz", ".xz", ".zip")

# ---- the documents ---------------------------------------------------------------------------
docs = {}  # name (relative to docs/, without .md) -> {"labels", "texts", "tags"}

def index_doc(path):
    labels, texts, tags = set(), [], set()
    fence = False
    with open(path, encoding="utf-8", errors="replace") as fh:
        for line in fh:
            if line.lstrip().startswith("```"):
                fence = not fence
            for m in re.finditer(r"\((\d+(?:\.\d+)*[a-z])\)", line):
                tags.add(m.group(1))
            if fence:
                continue
            for m in re.finditer(r"\*\*([^*]+)\*\*", line):
                texts.append(m.group(1).replace("`", "").lower())
            m = re.match(r"^#{1,6}\s+(.*?)\s*$", line)
            if m:
                text = m.group(1)
                texts.append(text.replace("`", "").lower())
                first = text.split()[0] if text.split() else ""
                labels.add(first.rstrip(".:"))
    return {"labels": labels, "texts": texts, "tags": tags}

for dirpath, _, files in os.walk("docs"):
    for f in files:
        if f.endswith(".md"):
            p = os.path.join(dirpath, f)
            docs[os.path.relpath(p, "docs")[:-3]] = index_doc(p)

# ---- parsing of citation targets -------------------------------------------------------------
ITEM = r"(?:\d+(?:\.\d+)*|[a-z]\d+)"
LIST = ITEM + r"(?:\s*(?:,|and|or|&|-|–|to)\s*" + ITEM + r")*"
RE_DOC = re.compile(r"(?<![\w./$%{<-])((?:[\w.-]+/)*)([\w-]+)\.md\b")
RE_SECTION = re.compile(r"^\s*,?\s*(?:sections?|§+)\s*(" + LIST + r")(?![\w.]*\w)")
RE_BARE_LABEL = re.compile(r"^\s*,?\s*(\d+\.\d+(?:\.\d+)*|[a-z]\d+)\b(?!\.\d)")
RE_QUOTED = re.compile(r'^(?:,\s*|\s+)"([^"]+)"')
RE_TAGS_AFTER = re.compile(r"^\s*,?\s*(?:(?:eqs?\.|equations?)\s*)?\((\d+(?:\.\d+)*[a-z])\)")
RE_DANGLING = re.compile(r"^\s*,?\s*(?:(?:sections?|§+)\s*)?$")
RE_DECISION = re.compile(r"\b[Dd]ecisions?\s+(U\d+b?(?:\s*(?:,|and|or|-|–|to)\s*U\d+b?)*)")
RE_TAG_DOTTED = re.compile(r"\((\d+\.\d+[a-z])\)")
RE_TAG_EQ = re.compile(r"\b[Ee]qs?\.\s*\((\d+(?:\.\d+)*[a-z])\)")
RE_COMMENT_LEAD = re.compile(r"^\s*(?:///<|///|//!|//|#+|\*+|/\*+)?\s?")

def expand(lst, prefix=""):
    """'1-6 and 10' -> ['1'..'6', '10']; '5.2-5.10' -> ['5.2'..'5.10']; 'U1-U3' -> U1, U2, U3."""
    out = []
    parts = re.split(r"\s*(?:,|and|or|&)\s*", lst)
    for part in parts:
        ends = re.split(r"\s*(?:-|–|to)\s*", part)
        if len(ends) == 2:
            a, b = ends
            ma = re.fullmatch(r"(.*?)(\d+)", a.replace(prefix, "", 1))
            mb = re.fullmatch(r"(.*?)(\d+)", b.replace(prefix, "", 1))
            if ma and mb and ma.group(1) == mb.group(1) and int(ma.group(2)) <= int(mb.group(2)) \
                    and int(mb.group(2)) - int(ma.group(2)) < 50:
                out += [prefix + ma.group(1) + str(k)
                        for k in range(int(ma.group(2)), int(mb.group(2)) + 1)]
                continue
        out += [e for e in ends if e]
    return out

problems, ok = [], []

def report(where, cite, problem):
    (problems if problem else ok).append("%s: %s: %s" % (where, cite, problem or "ok"))

def check_labels(where, doc, cite, labels):
    d = docs[doc]
    for lab in labels:
        lab = lab.rstrip(".")
        report(where, cite, None if lab in d["labels"] else
               "docs/%s.md has no heading '%s'" % (doc, lab))

def scan_line(where, line, nxt):
    # documents and what follows them
    for m in RE_DOC.finditer(line):
        folder, name = m.group(1), m.group(2)
        cite = m.group(0)
        if name in NOT_DOCS:
            continue
        if name in RETIRED:
            report(where, cite, "not a document of the repository (now %s)" % RETIRED[name])
            continue
        if "shared/" in folder:
            report(where, cite, "outside the repository")
            continue
        if folder not in ("", "./") and not folder.startswith(("docs/", "./docs/")):
            continue  # a file elsewhere (cases/x/README.md, $out/report.md, ...)
        doc = folder.replace("./", "", 1)[len("docs/"):] + name if "docs/" in folder else name
        rest = line[m.end():]
        if RE_DANGLING.match(rest) and nxt is not None:  # "section" at the end of the line
            rest = rest.rstrip() + " " + RE_COMMENT_LEAD.sub("", nxt, count=1)
        s = RE_SECTION.match(rest) or RE_BARE_LABEL.match(rest)
        q = RE_QUOTED.match(rest)
        t = RE_TAGS_AFTER.match(rest)
        if doc not in docs:
            if "docs/" in folder or s or q or t:
                report(where, cite, "docs/%s.md does not exist" % doc)
            continue
        if s:
            check_labels(where, doc, cite + rest[:s.end()], expand(s.group(1)))
        elif q:
            text = q.group(1).replace("`", "").lower()
            hit = any(text in h for h in docs[doc]["texts"])
            report(where, cite + rest[:q.end()], None if hit else
                   "docs/%s.md has no heading containing \"%s\"" % (doc, q.group(1)))
        elif t:
            report(where, cite + rest[:t.end()], None if t.group(1) in docs[doc]["tags"] else
                   "docs/%s.md has no equation (%s)" % (doc, t.group(1)))
        else:
            report(where, cite, None)
    # decisions of the formulation
    for m in RE_DECISION.finditer(line):
        if "formulation" not in docs:
            report(where, m.group(0), "docs/formulation.md does not exist")
            continue
        check_labels(where, "formulation", m.group(0), expand(m.group(1), "U"))
    # equation tags
    tags = {m.group(1) for m in RE_TAG_DOTTED.finditer(line)} | \
           {m.group(1) for m in RE_TAG_EQ.finditer(line)}
    named = [d for d in (mm.group(2) for mm in RE_DOC.finditer(line)) if d in docs]
    for tag in sorted(tags):
        doc = "formulation"
        for d in named:  # a tag on a line that names another document belongs to that one
            if tag in docs[d]["tags"]:
                doc = d
        if doc not in docs:
            report(where, "(%s)" % tag, "docs/formulation.md does not exist")
            continue
        report(where, "(%s)" % tag, None if tag in docs[doc]["tags"] else
               "docs/%s.md has no equation (%s)" % (doc, tag))

SELF = os.path.normpath("scripts/check_citations.sh")  # its comments show the patterns

def scan_file(path):
    if path.endswith(BINARY_EXT) or os.path.normpath(path) == SELF:
        return
    try:
        with open(path, "rb") as fh:
            data = fh.read(4 << 20)
    except OSError:
        return
    if b"\0" in data[:8192]:
        return
    lines = data.decode("utf-8", errors="replace").split("\n")
    for i, line in enumerate(lines):
        if ".md" in line or "ecision" in line or "(" in line:
            scan_line("%s:%d" % (path, i + 1), line, lines[i + 1] if i + 1 < len(lines) else None)

for p in paths:
    p = os.path.normpath(p)
    if os.path.isfile(p):
        scan_file(p)
        continue
    if not os.path.isdir(p):
        print("check_citations: no such file or folder: %s" % p, file=sys.stderr)
        sys.exit(2)
    for dirpath, dirnames, files in os.walk(p):
        dirnames[:] = sorted(d for d in dirnames
                             if d not in SKIP_DIRS and os.path.join(dirpath, d) not in SKIP_DIRS
                             and os.path.normpath(os.path.join(dirpath, d)) not in SKIP_DIRS)
        for f in sorted(files):
            scan_file(os.path.join(dirpath, f))

if verbose:
    for line in ok:
        print(line)
for line in problems:
    print(line)
print("check_citations: %d citations, %d unresolved" % (len(ok) + len(problems), len(problems)),
      file=sys.stderr)
sys.exit(1 if problems else 0)
PY
