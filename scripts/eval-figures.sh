# Sourced by the eval scripts: the figures of one `koanscope eval` report, its two `all` rows
# (the detection table's, then the relations table's), as recall precision size orientation
# grounded touching pointing tower marks, in percent without the sign.
eval_figures() {
    local detection relations
    detection=$(grep -E '^all ' "$1" | head -1 | awk '{print $3, $4, $6, $7, $8}' | tr -d %)
    relations=$(grep -E '^all ' "$1" | tail -1 | awk '{print $2, $3, $4, $6}' | tr -d %)
    echo "$detection $relations"
}
