#!/usr/bin/env bash
# Runs a fuzzer once on every file in the given directories (no fuzzing):
# the regression inputs of tests/fuzz/regressions/TARGET and the seeds.
#   replay.sh FUZZER DIR...
set -euo pipefail
fuzzer=$1
shift
files=()
for dir in "$@"; do
	[[ -d $dir ]] || continue
	while IFS= read -r -d '' f; do
		files+=("$f")
	done < <(find "$dir" -maxdepth 1 -type f ! -name 'README*' ! -name '.*' -print0 | sort -z)
done
if ((${#files[@]} == 0)); then
	echo "no inputs in $*"
	exit 0
fi
echo "replaying ${#files[@]} inputs"
exec "$fuzzer" -timeout=10 -rss_limit_mb=2048 "${files[@]}"
