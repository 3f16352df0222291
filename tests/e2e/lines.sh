# Source lines from the program's own portable PDBs, for each sampler.
# HotLines (its PDB embedded in the assembly) spends its time in one loop:
# the top line is inside the loop, Spin's samples all lie in it, and Main's
# line that calls Spin holds Spin's samples.  CpuRatio (its PDB beside the
# assembly): Heavy is one line, which holds its samples (but for any the
# runtime's own map leaves unmapped).  A
# missing PDB and another build's PDB leave their methods whole, with a note
# saying why.  Go's own pprof lists the hot line (-list); the terminal UI's
# Source view shows it.
source "$CLRSCOPE_TESTLIB"

src=$(dirname "$CLRSCOPE_TESTLIB")/../apps
line_of() { grep -n -- "$2" "$src/$1/Program.cs" | head -1 | cut -d: -f1; }
loop_begins=$(line_of HotLines "// loop begins")
loop_ends=$(line_of HotLines "// loop ends")
hot=$(line_of HotLines "// HOT")
calls_spin=$(line_of HotLines "Spin(100000);")
heavy=$(line_of CpuRatio "public static void Heavy() => Burn")

# rows FILE FUNCTION: its lines as "line self total" rows
rows() {
	python3 - "$1" "$2" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
for f in d["processes"][0]["functions"]:
    if f["name"] == sys.argv[2]:
        for l in f["lines"]:
            print(l["line"], l["self"], l["total"], l["file"])
EOF
}

dll=$(app HotLines)
for sampler in mixed suspend signal; do
	# the suspend sampler's ticks wait for the thread's safe points: on a
	# loaded machine it gives Spin under the 150 samples needed in 2 s, so
	# it runs longer
	seconds=2
	[[ $sampler == suspend ]] && seconds=5
	expect_status 0 "record HotLines ($sampler sampler)" -- \
		clrscope record -o "$WORK/$sampler" --sampler "$sampler" --rate 400 -- dotnet "$dll" "$seconds"
	clrscope report --lines --format json "$WORK/$sampler" >"$WORK/$sampler.json"
	spin=$(json "[f['total'] for f in d['processes'][0]['functions'] if f['name'].endswith('Program.Spin')][0]" "$WORK/$sampler.json")
	rows "$WORK/$sampler.json" Clrscope.TestApps.Program.Spin >"$WORK/spin.rows"
	rows "$WORK/$sampler.json" Clrscope.TestApps.Program.Main >"$WORK/main.rows"
	# the hottest line of the whole profile (largest self) is in the loop
	top=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
best = max(((l["self"], l["line"], f["name"]) for f in d["processes"][0]["functions"] for l in f["lines"]), default=(0, 0, ""))
print(best[1], best[2])' "$WORK/$sampler.json")
	read -r top_line top_fn <<<"$top"
	check "b < t < e" "$sampler: the top line is inside Spin's loop" t="$top_line" b="$loop_begins" e="$loop_ends"
	expect_contains "$top_fn" "Program.Spin" "$sampler: and it is Spin's"
	in_loop=$(awk -v b="$loop_begins" -v e="$loop_ends" '$1 > b && $1 < e {n += $2} END {print n + 0}' "$WORK/spin.rows")
	# the runtime's own walk (suspend) reports a few frames at addresses
	# outside their method's code (a thread stopped in a runtime stub):
	# those stay at method level (94-97 % have lines); signals: 100 %
	want=0.97
	[[ $sampler == suspend ]] && want=0.9
	# (the suspend sampler gives Spin a third of what signals give it: the
	# runtime stops the thread in its GC polls, counted there)
	check "l >= $want * s and s >= 150" "$sampler: $want of Spin's samples on the loop's lines" l="$in_loop" s="$spin"
	expect_contains "$(cat "$WORK/spin.rows")" "/HotLines/Program.cs" "$sampler: the file is HotLines' source (the embedded PDB)"
	at_call=$(awk -v c="$calls_spin" '$1 == c {print $3}' "$WORK/main.rows")
	check "c >= $want * s" "$sampler: Main's line that calls Spin holds Spin's samples" c="${at_call:-0}" s="$spin"
done

# text and collapsed
expect_status 0 "report --lines (text)" -- clrscope report --lines "$WORK/mixed"
first=$(awk '/total  line$/ {getline; print; exit}' <<<"$OUT")
expect_contains "$first" "Program.cs:" "text: the hottest lines follow the functions"
n=$(sed -n 's/.*Program\.cs:\([0-9]*\).*/\1/p' <<<"$first")
check "b < n < e" "text: the first line is in the loop" n="${n:-0}" b="$loop_begins" e="$loop_ends"
expect_contains "$OUT" "lines: none in 2 framework assemblies" "text: framework code is said to have no PDBs"
expect_status 0 "report --lines --format collapsed" -- clrscope report --lines --format collapsed "$WORK/mixed"
expect_contains "$OUT" "Clrscope.TestApps.Program.Main (Program.cs:$calls_spin);Clrscope.TestApps.Program.Spin (Program.cs:$hot) " \
	"collapsed: frames carry their lines"
expect_status 0 "report --format collapsed (no --lines)" -- clrscope report --format collapsed "$WORK/mixed"
[[ "$OUT" != *"Program.cs"* ]] && pass "collapsed without --lines is unchanged" || fail "lines in plain collapsed: $OUT"
expect_status 0 "report --lines --format speedscope" -- clrscope report --lines --format speedscope "$WORK/mixed"
check "n == 1" "speedscope: the hot line is a frame with file and line" n="$(python3 -c '
import json, sys
d = json.loads(sys.stdin.read())
print(sum(1 for f in d["shared"]["frames"] if f.get("line") == int(sys.argv[1]) and f.get("file", "").endswith("HotLines/Program.cs")))' "$hot" <<<"$OUT")"

# go tool pprof -list: the hot line carries samples; -top still by function
if command -v go >/dev/null; then
	export PPROF_TMPDIR=$WORK HOME=$WORK GOCACHE=$WORK/gocache
	clrscope report --format pprof "$WORK/mixed" >"$WORK/p.pb.gz"
	# (the paths are absolute: -source_path=/ stops pprof trimming them to the working directory)
	go tool pprof -sample_index=samples -source_path=/ -list 'Program.Spin$' "$WORK/p.pb.gz" >"$WORK/list" 2>"$WORK/pprof.err"
	hot_row=$(awk -v h="$hot" '$3 == h":" {print; exit}' "$WORK/list")
	flat=$(awk '{print $1}' <<<"$hot_row")
	[[ -n "$hot_row" ]] || cat "$WORK/list" "$WORK/pprof.err" >&2
	check "f >= 50" "go tool pprof -list: the HOT line has samples" f="${flat//[^0-9]/}"
	expect_contains "$(cat "$WORK/list")" "ROUTINE ======================== Clrscope.TestApps.Program.Spin in" "-list finds Spin's source"
	top1=$(go tool pprof -sample_index=samples -top "$WORK/p.pb.gz" 2>/dev/null | awk '/flat%/ {getline; print; exit}')
	expect_contains "$top1" "Clrscope.TestApps.Program.Spin" "-top: Spin on top (lines do not split functions)"
else
	fail "go is missing (scripts/deps.sh installs golang-go)"
fi

# the terminal UI's Source view: S on Spin in Functions shows its file with
# the cursor on the hottest line
source "$(dirname "$CLRSCOPE_TESTLIB")/tuilib.sh"
tui_start "$CLRSCOPE_BIN open $WORK/mixed"
expect_screen "Functions" 10 "the UI opens the session"
tm send-keys -t ui S
expect_screen "d = d * 0.999999 + i * 1e-9; // HOT" 10 "S on Spin (the top row) shows its source"
expect_screen "HotLines/Program.cs" 5 "... and the file's path"
row=$(tm capture-pane -p -t ui | grep -F "// HOT")
read -r self total n _ <<<"$row"
check "n == h and self > 30" "the HOT line carries its share of the samples" n="${n:-0}" h="$hot" self="${self:-0}"
tm send-keys -t ui q
tui_stop

# CpuRatio: its PDB beside the assembly; Heavy is one line
expect_status 0 "record CpuRatio" -- clrscope record -o "$WORK/ratio" --rate 400 -- dotnet "$(app CpuRatio)" 2
clrscope report --lines --format json "$WORK/ratio" >"$WORK/ratio.json"
rows "$WORK/ratio.json" "Clrscope.TestApps.Program+Worker.Heavy" >"$WORK/heavy.rows"
heavy_total=$(json "[f['total'] for f in d['processes'][0]['functions'] if f['name'].endswith('Worker.Heavy')][0]" "$WORK/ratio.json")
check "n == 1" "Heavy's samples are on one line" n="$(wc -l <"$WORK/heavy.rows")"
read -r l _ t file <<<"$(cat "$WORK/heavy.rows")"
check "l == h and t >= 0.97 * s" "... its own line, with (nearly) every sample of Heavy" l="${l:-0}" h="$heavy" t="${t:-0}" s="$heavy_total"
expect_contains "$file" "/CpuRatio/Program.cs" "the PDB beside the assembly names CpuRatio's source"

# no PDB, and another build's PDB: methods stay whole, and a note says why
mkdir -p "$WORK/nopdb" "$WORK/otherpdb"
cp "$CLRSCOPE_APPS"/CpuRatio/CpuRatio.{dll,deps.json,runtimeconfig.json} "$WORK/nopdb/"
cp "$CLRSCOPE_APPS"/CpuRatio/CpuRatio.{dll,deps.json,runtimeconfig.json} "$WORK/otherpdb/"
cp "$CLRSCOPE_APPS/Spin/Spin.pdb" "$WORK/otherpdb/CpuRatio.pdb"
for case in nopdb otherpdb; do
	expect_status 0 "record CpuRatio ($case)" -- clrscope record -o "$WORK/s-$case" -- dotnet "$WORK/$case/CpuRatio.dll" 1
	clrscope report --lines --format json "$WORK/s-$case" >"$WORK/$case.json"
	check "n == 0" "$case: no lines for CpuRatio's methods" \
		n="$(json "sum(len(f['lines']) for f in d['processes'][0]['functions'] if f['module'] == 'CpuRatio.dll')" "$WORK/$case.json")"
	check "n > 0" "$case: the methods are still there, whole" \
		n="$(json "sum(f['total'] for f in d['processes'][0]['functions'] if f['name'].endswith('Worker.Heavy'))" "$WORK/$case.json")"
	why=$(json "[n['why'] for n in d['processes'][0]['lines_notes'] if (n['assembly'] or '').endswith('CpuRatio.dll')]" "$WORK/$case.json")
	expect_status 0 "report --lines ($case, text)" -- clrscope report --lines "$WORK/s-$case"
	expect_contains "$OUT" "lines: none in CpuRatio.dll, its methods stay whole" "$case: the text report says so"
	if [[ $case == nopdb ]]; then
		expect_contains "$why" "No such file" "nopdb: the note says the PDB is missing"
	else
		expect_contains "$why" "another build" "otherpdb: the note says the PDB is another build's"
	fi
done

finish
