# record --rotate: one pprof file per interval beside the session, for
# collectors.  Every sample lands in exactly one file (their totals add up
# to the JSON report's count), the files follow one another in time, are
# 0600 and readable by go tool pprof; launched and attached alike.
source "$CLRSCOPE_TESTLIB"

command -v go >/dev/null || { fail "go is missing (scripts/deps.sh installs golang-go)"; finish; }
export PPROF_TMPDIR=$WORK HOME=$WORK GOCACHE=$WORK/gocache
# total FILE: the samples in a pprof file, as go tool pprof counts them
total() { go tool pprof -sample_index=samples -top "$1" 2>/dev/null | sed -n 's/.*Total samples = \([0-9]*\).*/\1/p'; }
# rotated SESSION: the number of rotated files and the sum of their samples
rotated() {
	local sum=0 files=0 n
	for f in "$1".*.pb.gz; do
		[[ -f $f ]] || continue
		n=$(total "$f")
		sum=$((sum + ${n:-0}))
		files=$((files + 1))
	done
	echo "$files $sum"
}

expect_status 0 "record CpuRatio for 3 s with --rotate 1" -- \
	clrscope record -o "$WORK/s" --rate 400 --rotate 1 -- dotnet "$(app CpuRatio)" 3
expect_contains "$ERR" "every 1 s to $WORK/s.NNNNNN.pb.gz" "record says where the files go"
samples=$(clrscope report --format json "$WORK/s" | python3 -c 'import json,sys; print(json.load(sys.stdin)["processes"][0]["samples"])')
read -r NFILES sum < <(rotated "$WORK/s")
check "n >= 3 and n <= 7" "one file a second (and the start-up), and the rest at the end" n="$NFILES"
expect_contains "$ERR" "wrote $NFILES pprof files: $WORK/s.000001.pb.gz to $WORK/s.00000$NFILES.pb.gz" "record says which files it wrote"
check "t == s" "the files hold every sample once" t="$sum" s="$samples"
check "m == 600" "the files are 0600" m="$(stat -c %a "$WORK/s.000001.pb.gz")"
check "a > 0 and b > 0 and c > 0" "the first three files all have samples" a="$(total "$WORK/s.000001.pb.gz")" \
	b="$(total "$WORK/s.000002.pb.gz")" c="$(total "$WORK/s.000003.pb.gz")"
# files 2 and 3 both start on an interval's boundary (file 1 at the agent's start)
t2=$(go tool pprof -raw "$WORK/s.000002.pb.gz" 2>/dev/null | sed -n 's/^Time: *\(.*\) UTC$/\1/p' | head -1)
t3=$(go tool pprof -raw "$WORK/s.000003.pb.gz" 2>/dev/null | sed -n 's/^Time: *\(.*\) UTC$/\1/p' | head -1)
[[ -n $t2 && -n $t3 ]] && check "b - a >= 0.6 and b - a <= 1.4" "the third file starts about a second after the second" \
	a="$(date -d "$t2" +%s.%N)" b="$(date -d "$t3" +%s.%N)" || fail "no profile times: '$t2' '$t3'"
expect_status 2 "--rotate wants a number of seconds" -- clrscope record --rotate x -- true

# a file that cannot be written is said, once, and the recording goes on
mkdir -p "$WORK/f.000001.pb.gz"
expect_status 0 "record with the first file's name taken by a directory" -- \
	clrscope record -o "$WORK/f" --rotate 0.5 -- dotnet "$(app CpuRatio)" 1
expect_contains "$ERR" "--rotate: $WORK/f.000001.pb.gz: cannot rename into place" "the failure names the file and why"
check "n == 1" "said once: no more files are tried" n="$(grep -c -- '--rotate:' <<<"$ERR")"
check "n == 0" "no temporary file is left behind" n="$(find "$WORK" -maxdepth 1 -name 'f.*.pb.gz.*' | wc -l)"
check "s > 0" "the session itself was recorded" s="$(clrscope report --format json "$WORK/f" | python3 -c 'import json,sys; print(json.load(sys.stdin)["processes"][0]["samples"])')"

# attached: the same files, and the program keeps running
dotnet "$(app Spin)" 15 >"$WORK/spin.out" 2>&1 &
spin=$!
CHILDREN+=($spin)
for _ in $(seq 100); do grep -q '^tick 2' "$WORK/spin.out" 2>/dev/null && break; sleep 0.1; done
pid=$(awk '/^pid / {print $2; exit}' "$WORK/spin.out")
expect_status 0 "record --pid for 2 s with --rotate 0.5" -- \
	clrscope record --pid "$pid" -o "$WORK/a" --duration 2 --rate 200 --rotate 0.5
samples=$(clrscope report --format json "$WORK/a" | python3 -c 'import json,sys; print(json.load(sys.stdin)["processes"][0]["samples"])')
read -r NFILES sum < <(rotated "$WORK/a")
check "n >= 4 and n <= 7" "a file each half second, and the rest at the detach" n="$NFILES"
check "t == s and s > 0" "the attached session's files hold every sample once" t="$sum" s="$samples"
kill -0 "$spin" 2>/dev/null && pass "the program is alive after the detach" || fail "the program died"
finish
