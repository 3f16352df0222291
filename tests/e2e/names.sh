# What a user reads around the stacks: every frame named or labelled by
# what it is, each label spelt one way in every export, every thread named,
# and the rate the sampler achieved.
# 1. Workload at 1 kHz (managed code, the JIT, type loading, GCs, libc):
#    no stack holds a bare [native] frame, and every one starts at the
#    thread's labelled start ([thread start]) or a named function; the
#    labels (frames in brackets) are the same set, spelt the same, in the
#    text report, the folded stacks, speedscope, pprof and JSON, the JIT's
#    among them as "[JIT compilation]".
# 2. The header's achieved rate is the ticks the agent counted over its
#    time, within 5%, beside the rate asked for.
# 3. Allocator: the runtime's stubs by the kind its perf map tells.
# 4. Waiter: its threads are named: the main thread "main", the program's
#    by their managed names ("parker"), the runtime's by the names it gave
#    them in the kernel (".NET TP Worker"); in the JSON and the text report.
source "$CLRSCOPE_TESTLIB"

expect_status 0 "record Workload at 1 kHz for 3 s" -- \
	clrscope record -o "$WORK/s" --rate 1000 -- dotnet "$(app Workload)" --stream 3
clrscope report --format collapsed --time wall "$WORK/s" >"$WORK/folded"
clrscope report --format json --time wall "$WORK/s" >"$WORK/r.json"
clrscope report --format speedscope --time wall "$WORK/s" >"$WORK/ss.json"
clrscope report --time wall --top 100000 "$WORK/s" >"$WORK/r.txt"

read -r bare rooted total <<<"$(python3 - "$WORK/folded" <<'EOF'
import sys
bare = rooted = total = 0
for line in open(sys.argv[1]):
    stack, n = line.rstrip("\n").rsplit(" ", 1)
    frames = stack.split(";")
    total += int(n)
    bare += int(n) if "[native]" in frames else 0
    rooted += int(n) if frames[0] == "[thread start]" else 0
print(bare, rooted, total)
EOF
)"
check "t > 1000" "the run has samples" t="$total"
expect_eq "$bare" 0 "no stack holds a bare [native] frame"
check "r >= 0.99 * t" "the stacks start at [thread start]" r="$rooted" t="$total"

# the labels of each export: names in brackets
labels_text() { awk '/^   self%  total%/ {on = 1; next} on && NF == 0 {on = 0} on {$1 = $2 = $3 = $4 = ""; sub(/^ +/, ""); print}' "$WORK/r.txt" | grep '^\[' | sort -u; }
labels_folded() { python3 -c 'import sys; print("\n".join(sorted({f for l in open(sys.argv[1]) for f in l.rsplit(" ", 1)[0].split(";") if f.startswith("[")})))' "$WORK/folded"; }
labels_json() { json '"\n".join(sorted(f["name"] for f in d["processes"][0]["functions"] if f["name"].startswith("[") and f["total_wall"]))' "$WORK/r.json"; }
labels_speedscope() { json '"\n".join(sorted(f["name"] for f in d["shared"]["frames"] if f["name"].startswith("[")))' "$WORK/ss.json"; }
labels_pprof() {
	clrscope report --format pprof "$WORK/s" >"$WORK/p.pb.gz"
	python3 - "$WORK/p.pb.gz" <<'EOF'
import gzip, sys
# profile.proto: Profile.function (5) has name (2) as an index into
# Profile.string_table (6); decoded by hand, protobuf's wire format
def fields(b):
    i = 0
    while i < len(b):
        key, i = varint(b, i)
        kind = key & 7
        if kind == 0:
            v, i = varint(b, i)
        elif kind == 2:
            n, i = varint(b, i)
            v, i = b[i:i + n], i + n
        elif kind == 1:
            v, i = b[i:i + 8], i + 8
        else:
            v, i = b[i:i + 4], i + 4
        yield key >> 3, v
def varint(b, i):
    v = s = 0
    while True:
        c = b[i]; i += 1
        v |= (c & 0x7f) << s; s += 7
        if c < 0x80:
            return v, i
data = gzip.open(sys.argv[1]).read()
strings, names = [], []
for k, v in fields(data):
    if k == 6:
        strings.append(v.decode())
    elif k == 5:
        names += [x for f, x in fields(v) if f == 2]
print("\n".join(sorted({strings[n] for n in names if strings[n].startswith("[")})))
EOF
}
want=$(labels_json)
expect_contains "$want" "[JIT compilation]" "the JIT's label is spelt [JIT compilation]"
expect_contains "$want" "[thread start]" "... the threads' start [thread start]"
for export in text folded speedscope pprof; do
	got=$("labels_$export")
	expect_eq "$got" "$want" "the $export export has the JSON's labels, spelt the same"
done

# the rate: ticks per second, of the ticks the agent counted over its time
p='d["processes"][0]'
achieved=$(json "$p['achieved_hz']" "$WORK/r.json")
counted=$(json "$p['agent']['ticks'] * 1000.0 / $p['agent']['status_ms']" "$WORK/r.json")
check "abs(a - c) <= 0.05 * c" "the achieved rate is the ticks counted per second, within 5%" a="$achieved" c="$counted"
# (the header rounds to whole ticks, the JSON to tenths)
header=$(grep -oE '1000 Hz requested, [0-9]+ achieved' "$WORK/r.txt" | grep -oE '[0-9]+ achieved' | grep -oE '[0-9]+')
check "abs(h - a) <= 0.5" "the header says the achieved rate beside the requested one" h="${header:-0}" a="$achieved"

# runtime stubs by kind: Allocator stores each object in a static, through
# the runtime's write barrier, a stub it copies outside every module; the
# runtime's perf map, asked for in the session, tells its kind, and the map
# is not left behind, neither there nor in /tmp; a user's own map is theirs
expect_status 0 "record Allocator 50000000" -- \
	clrscope record -o "$WORK/a" -- dotnet "$(app Allocator)" 50000000
clrscope report --format collapsed "$WORK/a" >"$WORK/a.folded"
stubs() { awk -v pat="$2" 'index($0, pat) {n += $NF} END {print n+0}' "$1"; }
check "k >= 5 and k >= 0.9 * (k + u)" "the stubs under AllocateMany are named by kind, [stub: KIND]" \
	k="$(stubs "$WORK/a.folded" "AllocateMany;[stub: ")" u="$(stubs "$WORK/a.folded" "AllocateMany;[runtime stub]")"
apid=$(json "d['processes'][0]['pid']" <(clrscope report --format json "$WORK/a"))
expect_eq "$(find "$WORK/a" -name 'perf-*.map' | wc -l)" 0 "no perf map is left in the session"
[[ ! -e /tmp/perf-$apid.map ]] && pass "... nor in /tmp" || fail "/tmp/perf-$apid.map left behind"
mkdir -p "$WORK/mine"
expect_status 0 "record Allocator with a perf map of the user's own" -- \
	env DOTNET_PerfMapEnabled=3 DOTNET_PerfMapJitDumpPath="$WORK/mine" \
	"$CLRSCOPE_BIN" record -o "$WORK/m" -- dotnet "$(app Allocator)" 5000000
expect_eq "$(find "$WORK/mine" -name 'perf-*.map' | wc -l)" 1 "the user's own perf map is left where they asked for it"

# threads by name
expect_status 0 "record Waiter: three named threads, the thread pool starved" -- \
	clrscope record -o "$WORK/w" -- dotnet "$(app Waiter)" 3
clrscope report --format json --time wall "$WORK/w" >"$WORK/w.json"
pid=$(json "$p['pid']" "$WORK/w.json")
expect_eq "$(json "[t['name'] for t in $p['threads'] if not t['name']]" "$WORK/w.json")" "[]" "every thread has a name"
expect_eq "$(json "[t['name'] for t in $p['threads'] if t['os_tid'] == $pid]" "$WORK/w.json")" "['main']" \
	"the main thread is main"
expect_eq "$(json "sum(t['name'] == 'parker' for t in $p['threads'])" "$WORK/w.json")" 3 \
	"the program's threads have their managed names"
check "n >= 2" "the runtime's pool workers have the names it gave them in the kernel" \
	n="$(json "sum(t['name'] == '.NET TP Worker' and t['os_name'] == '.NET TP Worker' for t in $p['threads'])" "$WORK/w.json")"
text=$(clrscope report --time wall "$WORK/w")
expect_contains "$text" "  main ($pid)" "the text report lists the main thread by name"
expect_contains "$text" "  parker (" "... and the program's"
expect_contains "$text" "  .NET TP Worker (" "... and the runtime's"
finish
