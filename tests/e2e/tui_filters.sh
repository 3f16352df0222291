# Filters that stick, in tmux: Phases spins in the third of its six seconds
# (three threads); a time range on that second makes Spin the Functions
# view's whole CPU time, a thread (by name at the prompt, or Enter in
# Threads) narrows it to that thread's third, and x counts everything
# again.  The status bar says what is counted.
source "$CLRSCOPE_TESTLIB"
source "$(dirname "$CLRSCOPE_TESTLIB")/tuilib.sh"

expect_status 0 "record Phases (three threads, six phases of a second)" -- \
	clrscope record -o "$WORK/s" --rate 200 -- dotnet "$(app Phases)" 3 5 1
# spin_samples [REPORT OPTIONS...]: Spin's samples as the report counts them
spin_samples() {
	clrscope report --format json "$@" "$WORK/s" |
		python3 -c 'import json,sys; p=json.load(sys.stdin)["processes"][0]; print(sum(f["self"] for f in p["functions"] if f["name"].endswith("Phases.Spin")))'
}
# the second with the most Spin samples, as report --from --to counts them
spin_second=$(for s in 0 1 2 3 4 5 6 7 8; do
	echo "$(spin_samples --from "$s" --to "$((s + 1))") $s"
done | sort -rn | head -1 | awk '{print $2}')
whole=$(spin_samples --from "$spin_second" --to "$((spin_second + 1))")
check "n >= 150" "report: second $spin_second holds (most of) the spinning ($whole samples of Spin)" n="${whole:-0}"
tid_of() { clrscope report --format json "$WORK/s" | python3 -c 'import json,sys; print([t["os_tid"] for t in json.load(sys.stdin)["processes"][0]["threads"] if t["name"] == sys.argv[1]][0])' "$1"; }
tid1=$(tid_of phase-1) tid2=$(tid_of phase-2)

tui_start "$CLRSCOPE_BIN open $WORK/s"
expect_screen "1 Functions" 10 "the session opens"
tm send-keys -t ui ":range $spin_second $((spin_second + 1))" Enter
expect_screen "samples of $spin_second.0 s-$((spin_second + 1)).0 s" 5 ":range says what is counted"
# Spin's row: self% and its count in the range
row=$(screen | grep -m1 "Phases.Spin" || true)
read -r self_pct _ self _ <<<"$row"
top=$(screen | grep -A1 -m1 "self%" | tail -1)
expect_contains "$top" "Phases.Spin" "Spin is the range's top function ($self_pct % of its CPU time)"
check "abs(n - w) <= 0.05 * w" "... with the samples report --from --to counts" n="${self:-0}" w="$whole"

tm send-keys -t ui ":thread phase-1" Enter
expect_screen "samples of thread $tid1 phase-1, $spin_second.0 s" 5 ":thread narrows to one thread, the range kept"
row=$(screen | grep -m1 "Phases.Spin" || true)
read -r _ _ one _ <<<"$row"
# (its share is the scheduler's split of two CPUs among three spinners
# over that second: a third on a quiet machine, more or less on a busy one)
one_report=$(spin_samples --thread "$tid1" --from "$spin_second" --to "$((spin_second + 1))")
check "abs(n - r) <= 0.05 * r and 0.15 * w <= n <= 0.6 * w" \
	"one thread of three: its part of Spin's samples, as report --thread --from --to counts them" \
	n="${one:-0}" r="${one_report:-0}" w="$whole"

tm send-keys -t ui 5
expect_screen "* phase-1" 5 "Threads marks the thread counted"
tm send-keys -t ui x
expect_screen "every sample counts again" 5 "x clears the filters"
# Enter on a thread's row in Threads counts it alone
line=$(screen | grep -n "phase-2" | head -1 | cut -d: -f1)
tm send-keys -t ui -l $'\e[<0;5;'"$line"'M'$'\e[<0;5;'"$line"'m'
sleep 0.3
tm send-keys -t ui Enter
expect_screen "samples of thread $tid2 phase-2" 5 "Enter in Threads counts that thread alone"
tm send-keys -t ui 1
expect_screen "Phases.Spin" 5 "Functions shows the thread's samples"
tm send-keys -t ui q
expect_screen "EXITED 0" 5 "q leaves"
finish
