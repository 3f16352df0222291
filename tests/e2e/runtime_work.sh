# What the runtime does on a thread, said by name.  RuntimeWork compiles
# 400 instantiations of a large generic method (full optimisation), each
# first called directly: the samples taken while the runtime compiled one
# are [JIT compilation] under the method it compiled, and there are as many
# as the compilation time its JIT callbacks measured; loading the types
# shows as [type loading]; the runtime's background compiler (tier 1) shows
# as [JIT compilation] alone.  Then RuntimeWork collects a graph of two
# million objects again and again with GC.Collect: its main thread's samples
# are [GC] under GC.Collect, in proportion to the time the collections took.
# For every sampler.
source "$CLRSCOPE_TESTLIB"

# leaf_counts FOLDED LEAF PARENT_RE: samples whose leaf is LEAF, and of
# those the ones whose frame above matches PARENT_RE
leaf_counts() {
	python3 - "$1" "$2" "$3" <<'EOF'
import re, sys
leaf, parent = sys.argv[2], re.compile(sys.argv[3])
n = under = 0
for line in open(sys.argv[1]):
    stack, count = line.rstrip("\n").rsplit(" ", 1)
    frames = stack.split(";")
    if frames[-1] != leaf:
        continue
    n += int(count)
    if len(frames) > 1 and parent.search(frames[-2]):
        under += int(count)
print(n, under)
EOF
}

# run NAME SAMPLER WHAT ARGS...: RuntimeWork under record at 1 kHz, its
# wall-time folded stacks and JSON report as $WORK/NAME.{folded,json}
run() {
	local name=$1 sampler=$2 what=$3
	shift 3
	expect_status 0 "$sampler: record RuntimeWork $what" -- \
		clrscope record --sampler "$sampler" --rate 1000 -o "$WORK/$name" -- dotnet "$(app RuntimeWork)" "$@"
	clrscope report --format collapsed --time wall "$WORK/$name" >"$WORK/$name.folded"
	clrscope report --format json --time wall "$WORK/$name" >"$WORK/$name.json"
}

# labelled NAME SAMPLER LEAF PARENT_RE MS SHARE WHERE: the samples whose
# leaf is LEAF match the MS milliseconds the runtime measured, at the rate
# the sampler kept (its ticks over the run: a loaded machine delays and
# skips ticks, never the runtime's clock), and SHARE of them sit under a
# frame matching PARENT_RE; sets $n
labelled() {
	local under rate
	read -r n under <<<"$(leaf_counts "$WORK/$1.folded" "$3" "$4")"
	rate=$(json 'round(d["processes"][0]["ticks"] / max(d["processes"][0]["duration_ms"], 1), 3)' "$WORK/$1.json")
	check "n >= 0.7 * m * r and n <= 1.2 * m * r" "$2: the $3 samples match the runtime's own time (at $rate ticks/ms)" \
		n="$n" m="$5" r="$rate"
	check "u >= $6 * n" "$2: ... and sit under $7" u="$under" n="$n"
}

for sampler in mixed signal suspend; do
	run "jit-$sampler" "$sampler" "compiling 400 methods" jit 400
	labelled "jit-$sampler" "$sampler" "[JIT compilation]" '^Clrscope\.TestApps\.(Compiled\.Work|Driver`1\.Run)' \
		"$(json 'd["processes"][0]["jit"]["total_ms"]' "$WORK/jit-$sampler.json")" 0.9 "the method being compiled"
	if [[ $sampler != signal ]]; then # (it has no exact walk for what it cannot unwind)
		rooted=$(awk '/Program\.Main;Clrscope\.TestApps\.Program\.CompileMany;.*\[JIT compilation\] [0-9]+$/ {n += $NF} END {print n+0}' "$WORK/jit-$sampler.folded")
		check "r >= 0.9 * n" "$sampler: ... with their callers down to Main" r="$rooted" n="$n"
	fi
	read -r t _ <<<"$(leaf_counts "$WORK/jit-$sampler.folded" "[type loading]" '.')"
	check "t > 0" "$sampler: loading the instantiations' types shows as [type loading]" t="$t"
done

# The runtime's background compiler (tier 1) calls none of the methods it
# compiles, and the runtime's own walk of its thread shows no managed frame:
# its samples are [JIT compilation] alone, never under the method compiled
# as if native code had called it.  Without ReadyToRun code and with call
# counting from the first call, it recompiles hundreds of methods at once.
export DOTNET_ReadyToRun=0 DOTNET_TC_CallCountThreshold=1 DOTNET_TC_CallCountingDelayMs=0
expect_status 0 "mixed: record RuntimeWork with tier 1 compilations in the background" -- \
	clrscope record --rate 1000 -o "$WORK/tier1" -- dotnet "$(app RuntimeWork)" jit 100
unset DOTNET_ReadyToRun DOTNET_TC_CallCountThreshold DOTNET_TC_CallCountingDelayMs
clrscope report --format collapsed --time wall "$WORK/tier1" >"$WORK/tier1.folded"
read -r alone lone <<<"$(python3 - "$WORK/tier1.folded" <<'EOF'
import sys
alone = lone = 0
for line in open(sys.argv[1]):
    stack, count = line.rstrip("\n").rsplit(" ", 1)
    frames = stack.split(";")
    if "[JIT compilation]" not in frames:
        continue
    below = frames[:frames.index("[JIT compilation]")]
    managed = [f for f in below if not f.startswith("[")]
    if not managed:
        alone += int(count)
    elif managed == below[-1:] and all(f.startswith("[") for f in below[:-1]):
        lone += int(count)
print(alone, lone)
EOF
)"
check "alone >= 50" "the background compiler's samples are [JIT compilation] with no managed frame" alone="$alone"
check "lone == 0" "... and none shows a compiled method as if native code called it" lone="$lone"

# The suspending sampler cannot walk while a GC holds the runtime
# suspended: only the signalling samplers see the collecting thread.
for sampler in mixed signal; do
	run "gc-$sampler" "$sampler" "collecting for 2 s" gc 2
	labelled "gc-$sampler" "$sampler" "[GC]" 'Program\.CollectFor$' \
		"$(json 'sum(g["duration_ms"] for g in d["processes"][0]["gcs"])' "$WORK/gc-$sampler.json")" 0.95 \
		"the method that called GC.Collect"
done
finish
