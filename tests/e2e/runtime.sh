# Another .NET runtime (TFM: net8.0, net9.0), as its programs run it:
# self-contained copies of the test apps with that runtime inside
# (tests/apps/build.sh makes them).  Launched under the profiler, Shapes'
# samples carry exactly the frames of its known shapes, and the session
# names the runtime the program carries; attached to a running Spin, the
# profiler samples its busy loop and detaches, twice, and the program runs
# on, its output whole.  Skipped where the runtime's pack could not be fetched.
#
#   runtime.sh TFM   (tests/CMakeLists.txt registers it once per runtime)
source "$CLRSCOPE_TESTLIB"
source "$(dirname "$CLRSCOPE_TESTLIB")/shapes.sh"
tfm=${1:?usage: runtime.sh TFM}
TEST_NAME=runtime_${tfm%.0}
apps=$CLRSCOPE_APPS/$tfm
[[ -f "$apps/unavailable" ]] && skip "$(head -1 "$apps/unavailable") $(sed -n 2p "$apps/unavailable")"
for name in Shapes Spin; do
	[[ -x "$apps/$name/$name" ]] ||
		{ fail "missing $apps/$name/$name: run scripts/test.sh (tests/apps/build.sh makes it)"; finish; }
done
# the version of the runtime the apps carry, as their runtimeconfig names it
version=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["runtimeOptions"]["includedFrameworks"][0]["version"])' \
	"$apps/Spin/Spin.runtimeconfig.json")
expect_contains "$version" "${tfm#net}." "the apps carry the $tfm runtime ($version)"

# launched: each shape's samples under the default sampler
for shape in osr frameless funclet recursion generic pinvoke dynamic; do
	s="$WORK/$shape"
	expect_status 0 "$tfm: $shape under the profiler" -- \
		clrscope record -o "$s" --rate 1000 --validate 20 -- "$apps/Shapes/Shapes" "$shape" 2
	expect_shape "$s" "$shape" mixed "$tfm: $shape"
	clrscope report --format json "$s" >"$s.json"
	expect_eq "$(json "d['processes'][0]['runtime']" "$s.json")" "CoreCLR $version" "$tfm: $shape: the session names the runtime"
done

# attached, twice, to one running program
"$apps/Spin/Spin" 60 >"$WORK/spin.out" 2>&1 &
spin=$!
CHILDREN+=($spin)
wait_line "$WORK/spin.out" '^tick 3' 30 || fail "Spin did not start: $(cat "$WORK/spin.out")"
for round in 1 2; do
	# (450 samples at most: fewer where the busy thread waits for a CPU)
	expect_attach_round "$spin" "$WORK/a$round" "$tfm: attach round $round" "^CoreCLR ${version//./\\.}\$" 100
done
kill -TERM "$spin"
rc=0
wait "$spin" || rc=$?
check "rc == 0" "$tfm: the program ends well on SIGTERM" rc="$rc"
expect_spin_output "$WORK/spin.out" "$tfm: its output went on, whole"
finish
