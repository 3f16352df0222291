# report --format pprof read by a consumer nobody here wrote: Go's own
# 'go tool pprof'.  Its totals equal the JSON report's sample counts
# exactly, with and without --from/--to and --thread; -top puts CpuRatio's
# hot method on top with the JSON's share; -traces lists its callers leaf
# first; samples carry pid, thread id and thread name labels, and tell the
# processes of a session apart; the terminal
# UI's :export pprof writes the same.
source "$CLRSCOPE_TESTLIB"

command -v go >/dev/null || { fail "go is missing (scripts/deps.sh installs golang-go)"; finish; }
export PPROF_TMPDIR=$WORK HOME=$WORK GOCACHE=$WORK/gocache GOFLAGS=-mod=mod
pprof() { go tool pprof "$@" 2>"$WORK/pprof.err"; }
# total FILE: the samples in a pprof file, as go tool pprof counts them
total() { pprof -sample_index=samples -top "$1" | sed -n 's/.*Total samples = \([0-9]*\).*/\1/p'; }

dll=$(app CpuRatio)
expect_status 0 "record CpuRatio at 400 Hz" -- clrscope record -o "$WORK/s" --rate 400 -- dotnet "$dll" 3

expect_status 0 "report --format pprof" -- clrscope report --format pprof "$WORK/s"
cp "$WORK/out" "$WORK/p.pb.gz"
expect_contains "$(od -An -tx1 -N2 "$WORK/p.pb.gz")" "1f 8b" "the file is gzip"
clrscope report --format json "$WORK/s" >"$WORK/r.json"
samples=$(json 'd["processes"][0]["samples"]' "$WORK/r.json")
pid=$(json 'd["processes"][0]["pid"]' "$WORK/r.json")
check "t == s" "go tool pprof counts the JSON's samples exactly" t="$(total "$WORK/p.pb.gz")" s="$samples"

# -top: the hot method first, with the JSON's share of the samples
pprof -sample_index=samples -top "$WORK/p.pb.gz" >"$WORK/top"
first=$(awk '/flat%/ {getline; print; exit}' "$WORK/top")
expect_contains "$first" "Clrscope.TestApps.Program+Worker.Burn" "-top puts Burn on top"
burn=$(json "[f['self'] for f in d['processes'][0]['functions'] if f['name']=='Clrscope.TestApps.Program+Worker.Burn'][0]" "$WORK/r.json")
read -r flat share _ <<<"$first"
check "f == b" "Burn's flat count is its self samples" f="$flat" b="$burn"
check "abs(p - 100.0 * b / s) < 0.006 and p >= 80" "Burn's share is self/samples" p="${share%\%}" b="$burn" s="$samples"
expect_contains "$(pprof -top "$WORK/p.pb.gz")" "Type: cpu" "cpu/nanoseconds is the default sample type"

# -traces: a stack leaf first, as the collapsed export has it root first
pprof -traces "$WORK/p.pb.gz" >"$WORK/traces"
if awk '/^-+\+/ {if (s ~ /Worker\.Burn\n *Clrscope\.TestApps\.Program\+Worker\.Heavy\n *Clrscope\.TestApps\.Program\+Worker\.Run\n *Clrscope\.TestApps\.Program\.Main\n/) found=1; s=""; next}
	{sub(/^ *[0-9.]+[a-z]*s /, ""); sub(/^ */, ""); s = s $0 "\n"}
	END {if (s ~ /Worker\.Burn\n *Clrscope\.TestApps\.Program\+Worker\.Heavy\n *Clrscope\.TestApps\.Program\+Worker\.Run\n *Clrscope\.TestApps\.Program\.Main\n/) found=1; exit !found}' "$WORK/traces"; then
	pass "-traces shows Burn, Heavy, Run, Main in order"
else
	fail "no trace Burn < Heavy < Run < Main in: $(head -40 "$WORK/traces")"
fi
expect_contains "$(cat "$WORK/traces")" "pid:  $pid" "samples carry the pid label"
expect_contains "$(cat "$WORK/traces")" "thread_id:  $pid" "samples carry the thread id label (the main thread's is the pid)"

# --from/--to and --thread select exactly what the JSON report selects
clrscope report --format pprof --from 1 --to 2 "$WORK/s" >"$WORK/w.pb.gz"
ws=$(clrscope report --format json --from 1 --to 2 "$WORK/s" | python3 -c 'import json,sys; print(json.load(sys.stdin)["processes"][0]["samples"])')
check "t == s and s > 0 and s < all" "--from 1 --to 2: the same samples as the JSON" t="$(total "$WORK/w.pb.gz")" s="$ws" all="$samples"
clrscope report --format pprof --thread "$pid" "$WORK/s" >"$WORK/t.pb.gz"
ts=$(clrscope report --format json --thread "$pid" "$WORK/s" | python3 -c 'import json,sys; print(json.load(sys.stdin)["processes"][0]["samples"])')
check "t == s and s > 0" "--thread: the same samples as the JSON" t="$(total "$WORK/t.pb.gz")" s="$ts"
expect_status 1 "--pid of another process fails" -- clrscope report --format pprof --pid 1 "$WORK/s"
expect_contains "$ERR" "no process 1" "and says which"
expect_status 0 "--pid of the process" -- clrscope report --format pprof --pid "$pid" "$WORK/s"
expect_status 2 "pprof is refused on a terminal" -- script -qec "$CLRSCOPE_BIN report --format pprof $WORK/s" /dev/null

# two processes in one profile, told apart by their pid labels
expect_status 0 "record Spawner, which runs CpuRatio as a child" -- \
	clrscope record -o "$WORK/two" -- dotnet "$(app Spawner)" "$(app CpuRatio)"
clrscope report --format json "$WORK/two" >"$WORK/two.json"
clrscope report --format pprof "$WORK/two" >"$WORK/two.pb.gz"
check "t == s" "both processes' samples, exactly" t="$(total "$WORK/two.pb.gz")" \
	s="$(json 'sum(p["samples"] for p in d["processes"])' "$WORK/two.json")"
tags=$(pprof -sample_index=samples -tags "$WORK/two.pb.gz" | awk '/^ *pid:/ {on=1; next} /^$/ {on=0} on')
for p in $(json '" ".join(str(p["pid"]) for p in d["processes"])' "$WORK/two.json"); do
	n=$(json "[p['samples'] for p in d['processes'] if p['pid'] == $p][0]" "$WORK/two.json")
	grep -qE "^ +$n\.0 \([ 0-9.]+%\): $p\$" <<<"$tags" && pass "pid $p labels its $n samples" || fail "no '$n.0 (..%): $p' in: $tags"
done
child=$(json '[p["pid"] for p in d["processes"] if "Spawner" not in p["command"]][0]' "$WORK/two.json")
clrscope report --format pprof --pid "$child" "$WORK/two" >"$WORK/child.pb.gz"
check "t == s" "--pid: the child's samples only" t="$(total "$WORK/child.pb.gz")" \
	s="$(json "[p['samples'] for p in d['processes'] if p['pid'] == $child][0]" "$WORK/two.json")"

# the terminal UI's :export pprof writes the same profile
source "$(dirname "$CLRSCOPE_TESTLIB")/tuilib.sh"
tui_start "$CLRSCOPE_BIN open $WORK/s"
expect_screen "1 Functions" 10 "the UI opens the session"
tm send-keys -t ui : ; sleep 0.2
tm send-keys -t ui "export pprof $WORK/ui.pb.gz" Enter
expect_screen "wrote $WORK/ui.pb.gz" 10 ":export pprof says it wrote the file"
check "t == s" ":export pprof holds every sample" t="$(total "$WORK/ui.pb.gz")" s="$samples"
tm send-keys -t ui q
tui_stop

# thread names: Spin's helper thread is named spin-helper
expect_status 0 "record Spin for 2 s" -- clrscope record -o "$WORK/spin" --sampler suspend -- dotnet "$(app Spin)" 2
clrscope report --format pprof "$WORK/spin" >"$WORK/spin.pb.gz"
expect_contains "$(pprof -tags "$WORK/spin.pb.gz")" "spin-helper" "the thread name label"

finish
