# Sessions stay bounded: a size cap ends the recording with an END record
# and a clear message; a process started by the recorded program after the
# recording ended does not record itself (the session is closed) unless
# --follow-children; 'clrscope prune' and the config's prune_after remove
# old sessions from the default root and nothing else.
source "$CLRSCOPE_TESTLIB"
dll=$(app Spin)
export XDG_RUNTIME_DIR=$WORK/xdg XDG_CONFIG_HOME=$WORK/cfg # a root of our own
mkdir -m 0700 "$XDG_RUNTIME_DIR"
root=$XDG_RUNTIME_DIR/clrscope

# files the agents wrote in a session's process directories
session_bytes() { find "$1" -mindepth 2 -maxdepth 2 -type f -printf '%s\n' | awk '{s += $1} END {print s + 0}'; }
end_of() { clrscope report --format json "$1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["processes"][0]["end"])'; }

# ---- the size cap ----
expect_status 0 "record with a 24 KiB cap" -- clrscope record --max-size 24K --rate 1000 --duration 4 -o "$WORK/cap" -- dotnet "$dll"
expect_contains "$ERR" "the session reached its size cap of 24 KiB and recording stopped early" "record says the cap was reached"
bytes=$(session_bytes "$WORK/cap")
check "b <= 24 * 1024 + 512 and b > 12 * 1024" "the session stayed within its cap (the END record over it)" b="$bytes"
[[ "$(end_of "$WORK/cap")" == "size cap reached" ]] && pass "its log ends with END (size cap reached)" ||
	fail "end: $(end_of "$WORK/cap")"
printf '%s\n' "$OUT" >"$WORK/cap.out"
expect_spin_output "$WORK/cap.out" "the program ran on to its end"
[[ -e "$WORK/cap/closed" ]] && pass "the full session is closed" || fail "no closed mark"
expect_status 2 "a bad --max-size" -- clrscope record --max-size 12Q -- true
expect_contains "$ERR" "--max-size wants a size such as 500K" "it says what a size looks like"
[[ $(cat "$WORK/cap/max-size") == $((24 * 1024)) ]] && pass "max-size holds the cap" || fail "max-size: $(cat "$WORK/cap/max-size")"

# ---- descendants that start after the recording ended ----
late() { # late SESSION OUT [OPTION]: the recorded program starts Spin 2 s later and exits at once
	local session=$1 out=$2
	shift 2
	expect_status 1 "record a launcher ($*)" -- clrscope record "$@" -o "$session" -- \
		bash -c "(sleep 2; exec dotnet '$dll' 1) >'$out' 2>&1 & exit 0"
	wait_line "$out" '^pid ' 20 || fail "the late Spin did not start: $(cat "$out")"
	local pid
	pid=$(awk '/^pid / {print $2; exit}' "$out")
	for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
}
late "$WORK/closed" "$WORK/late1.out"
n=$(find "$WORK/closed" -mindepth 1 -maxdepth 1 -type d | wc -l)
[[ "$n" == 0 ]] && pass "a process started after the recording ended does not record" ||
	fail "$n process directories in the closed session"
late "$WORK/follow" "$WORK/late2.out" --follow-children
n=$(find "$WORK/follow" -mindepth 1 -maxdepth 1 -type d | wc -l)
[[ "$n" == 1 ]] && pass "--follow-children keeps it recording" || fail "$n process directories with --follow-children"
[[ ! -e "$WORK/follow/closed" ]] && pass "the followed session stays open" || fail "the followed session is closed"

# ---- prune ----
clrscope record -- true >/dev/null 2>&1 || true
clrscope record -- true >/dev/null 2>&1 || true
mapfile -t sessions < <(find "$root" -mindepth 1 -maxdepth 1 -type d | sort)
[[ ${#sessions[@]} == 2 ]] && pass "two sessions under the default root" || fail "sessions: ${sessions[*]}"
old=${sessions[0]} new=${sessions[1]}
find "$old" -exec touch -h -d '10 days ago' {} +
mkdir "$root/not-a-session" && touch -d '10 days ago' "$root/not-a-session"
expect_status 0 "prune --dry-run" -- clrscope prune --dry-run --older-than 7d
expect_contains "$OUT" "would remove $old" "it names the old session"
[[ -d "$old" ]] && pass "--dry-run removes nothing" || fail "--dry-run removed $old"
expect_status 0 "prune --older-than 7d" -- clrscope prune --older-than 7d
expect_contains "$ERR" "removed 1 session older than 1w" "it counts what it removed"
[[ ! -e "$old" && -d "$new" && -d "$root/not-a-session" ]] && pass "only the old session went" ||
	fail "after prune: $(ls "$root")"
expect_status 2 "prune with a bad age" -- clrscope prune --older-than soon

# the config's prune_after, applied by record as it starts
mkdir -p "$XDG_CONFIG_HOME/clrscope"
echo "prune_after = 1h" >"$XDG_CONFIG_HOME/clrscope/config"
find "$new" -exec touch -h -d '2 hours ago' {} +
clrscope record -- true >/dev/null 2>&1 || true
[[ ! -e "$new" ]] && pass "record removes sessions older than prune_after" || fail "$new is still there"
mapfile -t sessions < <(find "$root" -mindepth 1 -maxdepth 1 -type d -name '2*')
find "${sessions[0]}" -exec touch -h -d '2 hours ago' {} +
echo "prune_after = never" >"$XDG_CONFIG_HOME/clrscope/config"
clrscope record -- true >/dev/null 2>&1 || true
[[ -d "${sessions[0]}" ]] && pass "prune_after = never keeps them" || fail "removed with prune_after = never"
echo "prune_after = soon" >"$XDG_CONFIG_HOME/clrscope/config"
expect_status 0 "prune with a bad config line" -- clrscope prune -n
expect_contains "$ERR" "prune_after wants an age" "the config line is reported"
finish
