# The awaits snapshot side by side with dotnet-dump's dumpasync, the
# reference: on the Async app's parked chains (park mode), every chain
# `dotnet-dump analyze DUMP -c "dumpasync --coalesce"` prints, from what
# the innermost method awaits out to the outermost one, with its count,
# is a group of clrscope's JSON report with the same methods in the same
# order, the same WhenAll, the same awaited type and the same count, and
# clrscope has no other.  dotnet-dump is a NuGet tool, installed into the
# build tree on first use; where it cannot be, the test says Skipped.
source "$CLRSCOPE_TESTLIB"

tools=$CLRSCOPE_TEST_TOOLS/dotnet-tools
dump=$tools/dotnet-dump
if [[ ! -x $dump ]] && ! dotnet tool install --tool-path "$tools" dotnet-dump >"$WORK/install.out" 2>&1; then
	skip "dotnet-dump could not be installed from NuGet: $(tail -1 "$WORK/install.out")"
fi

"$CLRSCOPE_BIN" record -o "$WORK/s" -- dotnet "$(app Async)" 60 park >"$WORK/s.out" 2>&1 &
CHILDREN+=($!)
wait_line "$WORK/s.out" '^parked' 30 || fail "the chains were not parked: $(cat "$WORK/s.out")"
pid=$(awk '/^pid / {print $2; exit}' "$WORK/s.out")
CHILDREN+=("$pid")
expect_status 0 "dial snapshot=awaits" -- clrscope dial "$WORK/s" snapshot=awaits
for i in $(seq 100); do
	clrscope report --format json "$WORK/s" >"$WORK/r.json" 2>/dev/null || true
	[[ $(json "len(d['processes'][0]['awaits_snapshots'])" "$WORK/r.json" 2>/dev/null) -ge 1 ]] && break
	sleep 0.1
done
expect_status 0 "dotnet-dump collect" -- "$dump" collect -p "$pid" -o "$WORK/core"
expect_status 0 "dotnet-dump analyze: dumpasync --coalesce" -- \
	"$dump" analyze "$WORK/core" -c "dumpasync --coalesce" -c exit
printf '%s\n' "$OUT" >"$WORK/dumpasync.txt"
rm -f "$WORK/core"

# Both as "count:outermost;...;innermost;awaited" lines, sorted, in one
# spelling: a state machine as its method's name, WhenAll's promise as
# [WhenAll], an awaited type without its generic arity
python3 - "$WORK/dumpasync.txt" "$WORK/r.json" "$WORK/theirs" "$WORK/ours" <<'PY'
import json, re, sys

def spell(name):
    m = re.search(r"<(\w+)>d__\d+", name)
    if m:
        return m.group(1)
    if "WhenAllPromise" in name:
        return "[WhenAll]"
    return re.sub(r"`\d+", "", name)

# dumpasync: "[N] ADDRESS (STATE) TYPE", two spaces of indent a level, each
# level the awaiters of the one above; a chain ends at a node without
# awaiters, its count the one there
nodes = []
for line in open(sys.argv[1]):
    m = re.match(r"^( *)\[(\d+)\] [0-9a-f]+ (?:\(-?\d+\) )?(\S.*?)\s*$", line)
    if m:
        nodes.append((len(m.group(1)) // 2, int(m.group(2)), m.group(3)))
theirs = []
for i, (depth, count, name) in enumerate(nodes):
    if i + 1 < len(nodes) and nodes[i + 1][0] > depth:
        continue  # awaited by the next ones: not a chain's end
    path, want = [], depth
    for d, _, n in reversed(nodes[:i + 1]):
        if d == want:
            path.append(spell(n))
            want -= 1
    # path: outermost first down to the awaited object (the root of its tree)
    theirs.append("%d:%s" % (count, ";".join(path[:-1] + ["[awaiting %s]" % path[-1]])))

ours = []
for g in json.load(open(sys.argv[2]))["processes"][0]["awaits"] or []:
    frames = [spell(f) if not f.startswith("[awaiting ") else "[awaiting %s]" % spell(f[10:-1]) for f in g["stack"]]
    ours.append("%d:%s" % (g["count"], ";".join(frames)))
open(sys.argv[3], "w").write("\n".join(sorted(theirs)) + "\n")
open(sys.argv[4], "w").write("\n".join(sorted(ours)) + "\n")
PY
expect_eq "$(cat "$WORK/ours")" "$(cat "$WORK/theirs")" \
	"every chain dumpasync --coalesce prints is an awaits group with the same frames and count, and no other"
check "n == 3" "three chains of the app's three shapes" n="$(grep -c . "$WORK/theirs")"
[[ "$(cat "$WORK/ours")" == "$(cat "$WORK/theirs")" ]] ||
	{ echo "clrscope:"; cat "$WORK/ours"; echo "dumpasync:"; cat "$WORK/theirs"; cat "$WORK/dumpasync.txt"; } >&2
finish
