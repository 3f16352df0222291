# What the runtime does on a thread, said by name.  RuntimeWork compiles
# 400 instantiations of a large generic method (full optimisation), each
# first called directly: the samples taken while the runtime compiled one
# are [JIT compilation] under the method it compiled, and there are as many
# as the compilation time its JIT callbacks measured; loading the types
# shows as [type loading].  Then RuntimeWork collects a graph of two
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

for sampler in mixed signal suspend; do
	expect_status 0 "$sampler: record RuntimeWork compiling 400 methods" -- \
		clrscope record --sampler "$sampler" --rate 1000 -o "$WORK/jit-$sampler" -- dotnet "$(app RuntimeWork)" jit 400
	clrscope report --format collapsed --time wall "$WORK/jit-$sampler" >"$WORK/jit-$sampler.folded"
	clrscope report --format json --time wall "$WORK/jit-$sampler" >"$WORK/jit-$sampler.json"
	read -r n under <<<"$(leaf_counts "$WORK/jit-$sampler.folded" "[JIT_compilation]" '^Clrscope\.TestApps\.(Compiled\.Work|Driver`1\.Run)')"
	jit_ms=$(json 'd["processes"][0]["jit"]["total_ms"]' "$WORK/jit-$sampler.json")
	check "n >= 0.7 * j and n <= 1.2 * j" "$sampler: the [JIT compilation] samples match the JIT's own time (1 ms each)" \
		n="$n" j="$jit_ms"
	check "u >= 0.9 * n" "$sampler: ... and sit under the method being compiled" u="$under" n="$n"
	if [[ $sampler != signal ]]; then # (it has no exact walk for what it cannot unwind)
		rooted=$(awk '/Program\.Main;Clrscope\.TestApps\.Program\.CompileMany;.*\[JIT_compilation\] [0-9]+$/ {n += $NF} END {print n+0}' "$WORK/jit-$sampler.folded")
		check "r >= 0.9 * n" "$sampler: ... with their callers down to Main" r="$rooted" n="$n"
	fi
	read -r t _ <<<"$(leaf_counts "$WORK/jit-$sampler.folded" "[type_loading]" '.')"
	check "t > 0" "$sampler: loading the instantiations' types shows as [type loading]" t="$t"
done

# The suspending sampler cannot walk while a GC holds the runtime
# suspended: only the signalling samplers see the collecting thread.
for sampler in mixed signal; do
	expect_status 0 "$sampler: record RuntimeWork collecting for 2 s" -- \
		clrscope record --sampler "$sampler" --rate 1000 -o "$WORK/gc-$sampler" -- dotnet "$(app RuntimeWork)" gc 2
	clrscope report --format collapsed --time wall "$WORK/gc-$sampler" >"$WORK/gc-$sampler.folded"
	clrscope report --format json --time wall "$WORK/gc-$sampler" >"$WORK/gc-$sampler.json"
	read -r n under <<<"$(leaf_counts "$WORK/gc-$sampler.folded" "[GC]" 'Program\.CollectFor$')"
	gc_ms=$(json 'sum(g["duration_ms"] for g in d["processes"][0]["gcs"])' "$WORK/gc-$sampler.json")
	check "n >= 0.7 * g and n <= 1.2 * g" "$sampler: the [GC] samples match the collections' time (1 ms each)" \
		n="$n" g="$gc_ms"
	check "u >= 0.95 * n" "$sampler: ... and sit under the method that called GC.Collect" u="$under" n="$n"
done
finish
