#!/usr/bin/env bash
# expect.sh CODE REGEX [--absent PATH] -- COMMAND...
# Runs COMMAND, checks its exit code equals CODE and its combined output matches the extended REGEX
# (grep -E). With --absent PATH, also checks that PATH does not exist afterwards.
set -u
code="$1"; regex="$2"; shift 2
absent=""
if [[ "${1:-}" == "--absent" ]]; then absent="$2"; shift 2; fi
[[ "${1:-}" == "--" ]] && shift
out="$("$@" 2>&1)"
rc=$?
echo "$out"
echo "---- exit code $rc (expected $code)"
if [[ "$rc" != "$code" ]]; then echo "FAIL: exit code $rc, expected $code"; exit 1; fi
if ! grep -Eq -- "$regex" <<<"$out"; then echo "FAIL: output does not match /$regex/"; exit 1; fi
if [[ -n "$absent" && -e "$absent" ]]; then echo "FAIL: $absent exists"; exit 1; fi
exit 0
