# Rewrites citations of design documents to the documents under docs/ (GNU sed -E; idempotent).
# Usage: sed -E -i -f citations.sed FILE...
# Paths into a sibling shared folder: ../shared/docs/NAME.md -> docs/NAME.md
s#(\.\./)?shared/docs/([[:alnum:]_-]+)\.md#docs/\2.md#g
# The formulation document: ugks-formulation.md, ugks-formulation -> docs/formulation.md
s#docs/ugks-formulation\.md#docs/formulation.md#g
s#(^|[^/[:alnum:]_.-])ugks-formulation(\.md)?#\1docs/formulation.md#g
# Bare document names -> docs/NAME.md
s#(^|[^/[:alnum:]_.-])(formulation|architecture|style|overset|decisions|steady|usage|performance|errors|building|validation)\.md#\1docs/\2.md#g
# Section signs after a document name: NAME.md §9 -> NAME.md section 9
s#\.md,? ?§ ?([0-9])#.md section \1#g
# Bare decision labels in comments: (U4) or ", U4)" -> decision U4 (lines that stay within 100 columns)
/^.{0,91}$/s#(//.*[(,] ?)(U[0-9]+b?)([]),:;])#\1decision \2\3#
# Decisions name their document unless the line already does (lines that stay within 100 columns;
# a bare "decision Uk" refers to docs/formulation.md as well)
/formulation\.md/!{/^.{0,79}$/s#(^|[^[:alnum:]_/])([Dd]ecisions? U[0-9])#\1docs/formulation.md, \2#}
