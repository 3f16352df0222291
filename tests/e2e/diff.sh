# clrscope diff: two runs of the 3:1 CpuRatio demo, the second with its
# callers' weights swapped (1:3), move Heavy and Light about 50 points
# each way, the largest changes first; the JSON follows its schema; the
# collapsed form pairs every stack's counts for a differential flame graph;
# a session compared with itself changes nothing; bad input is refused;
# ':diff DIR' in the terminal UI shows the same changes, and the Flame view
# then shows them frame by frame (a differential flame graph).
source "$CLRSCOPE_TESTLIB"
source "$(dirname "$CLRSCOPE_TESTLIB")/tuilib.sh"

dll=$(app CpuRatio)
expect_status 0 "record the 3:1 run" -- clrscope record -o "$WORK/base" --rate 400 -- dotnet "$dll" 2
expect_status 0 "record the swapped 1:3 run" -- clrscope record -o "$WORK/new" --rate 400 -- dotnet "$dll" 2 swapped

worker='Clrscope.TestApps.Program+Worker'
expect_status 0 "diff as JSON" -- clrscope diff --format json "$WORK/base" "$WORK/new"
cp "$WORK/out" "$WORK/d.json"
check "f == 1" "the diff's format and version" \
	f="$(json 'int(d["format"] == "clrscope-diff" and d["version"] == 1)' "$WORK/d.json")"
row() { json "[f for f in d['functions'] if f['name'] == '$worker.$1'][0]$2" "$WORK/d.json"; }
check "abs(x + 50) <= 10" "Heavy's total moved about -50 points" x="$(row Heavy "['delta_total_pct']")"
check "abs(x - 50) <= 10" "Light's total moved about +50 points" x="$(row Light "['delta_total_pct']")"
check "abs(b - 75) <= 8 and abs(n - 25) <= 8" "Heavy's shares: 75% then 25%" \
	b="$(row Heavy "['base']['total_pct']")" n="$(row Heavy "['new']['total_pct']")"
check "x == 1" "the two largest changes come first" \
	x="$(json "int(sorted(f['name'] for f in d['functions'][:2]) == ['$worker.Heavy', '$worker.Light'])" "$WORK/d.json")"
check "abs(x) <= 5" "Burn's total barely moves (it runs under both)" x="$(row Burn "['delta_total_pct']")"
check "s > 500" "the base's samples are counted" s="$(json 'd["base"]["samples"]' "$WORK/d.json")"

expect_status 0 "diff as text" -- clrscope diff --top 2 "$WORK/base" "$WORK/new"
check "n == 2" "--top 2 lists two functions" n="$(grep -c "^ *[0-9.]\+ \+[0-9.]\+ \+[-+]" "$WORK/out")"
expect_contains "$OUT" "$worker.Light" "the text names the callers"

expect_status 0 "diff as collapsed stacks" -- clrscope diff --format collapsed "$WORK/base" "$WORK/new"
read -r heavy_base heavy_new < <(awk '/Worker\.Heavy;Clrscope\.TestApps\.Program\+Worker\.Burn [0-9]+ [0-9]+$/ {print $(NF-1), $NF}' "$WORK/out")
check "b > 2 * n and n > 0" "Heavy;Burn: many samples before, fewer after" b="${heavy_base:-0}" n="${heavy_new:-0}"
check "x == 0" "every line is 'stack base new'" x="$(grep -cvE ' [0-9]+ [0-9]+$' "$WORK/out" || true)"

expect_status 0 "a session against itself" -- clrscope diff --format json "$WORK/base" "$WORK/base"
cp "$WORK/out" "$WORK/same.json"
check "x == 0" "changes nothing" x="$(json 'max(abs(f["delta_total_pct"]) + abs(f["delta_self_pct"]) for f in d["functions"])' "$WORK/same.json")"

expect_status 2 "one session is not enough" -- clrscope diff "$WORK/base"
expect_status 2 "an unknown format is refused" -- clrscope diff --format svg "$WORK/base" "$WORK/new"
expect_status 1 "a missing session is an error" -- clrscope diff "$WORK/base" "$WORK/nowhere"
expect_contains "$ERR" "nowhere" "which says which session"
mkdir "$WORK/empty"
expect_status 1 "a directory without a profile is an error" -- clrscope diff "$WORK/empty" "$WORK/new"

# the terminal UI: the swapped run open, compared with the first
tui_start "$CLRSCOPE_BIN open $WORK/new"
expect_screen "1 Functions" 10 "the swapped run opens"
tm send-keys -t ui ":diff $WORK/empty" Enter
expect_screen "is not a clrscope session" 5 ":diff of a directory without a profile says so"
tm send-keys -t ui ":diff $WORK/base" Enter
expect_screen "base $WORK/base" 5 ":diff shows the Diff view against the first run"
line() { screen | grep -m1 -F "Worker.$1" || true; }
light=$(line Light | awk '{print $3}') heavy=$(line Heavy | awk '{print $3}')
check "abs(l - 50) <= 10 and abs(h + 50) <= 10" "Light gained and Heavy lost about 50 points on screen" \
	l="${light:-0}" h="${heavy:-0}"
tm send-keys -t ui f
expect_screen "(against $WORK/base: red grew, blue shrank)" 5 "the Flame view compares with the base"
tm send-keys -t ui / 
sleep 0.3
tm send-keys -t ui "Worker.Light" Enter
expect_screen "Worker.Light: " 5 "/ selects Light in the differential flame graph"
points=$(screen | sed -n 's/.*Worker\.Light: .*(\([-+][0-9.]*\) points).*/\1/p' | head -1)
check "abs(p - 50) <= 10" "its footer says Light grew about 50 points" p="${points:-0}"
tm send-keys -t ui ":flame plain" Enter
# the comparison's "(against" leaves the footer once the plain graph is drawn
if wait_screen_gone "(against " 5 && wait_screen "Worker.Light" 5; then
	pass ":flame plain drops the comparison"
else
	fail ":flame plain drops the comparison: $(screen)"
fi
tm send-keys -t ui q
expect_screen "EXITED 0" 5 "q leaves"
finish
