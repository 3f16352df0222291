# Exact stacks: on programs of known shape, every sampler's samples of the
# busy thread carry the frames the runtime's own unwinder reports, root
# first, none lost and none invented: an OSR'd driver loop, a frameless
# caller and a frameless leaf, a catch funclet (attributed to its method),
# recursion 300 deep, a generic method calling a lambda, a P/Invoke
# calling back into managed code, the same through a native frame that a
# kernel sample's copy of the stack ends in (its managed callers lie beyond
# the copy), a dynamic method (which the runtime's event stream names and
# the profiling API's walk leaves out), and more compiled methods than the
# code map keeps at once (the default sampler only).  The
# validation dial repeats fast walks exactly and finds them equal, and time
# splits keep their true ratio.
source "$CLRSCOPE_TESTLIB"
source "$(dirname "$CLRSCOPE_TESTLIB")/shapes.sh"

# the kernel sampler: where the kernel samples this user's threads,
# running threads' samples are the kernel's; elsewhere they are signalled,
# and the report says why
kernel_samples() { # kernel_samples SESSION WHAT
	clrscope report --format json "$1" >"$WORK/k.json"
	local k
	k=$(json "d['processes'][0]['agent']['kernel_samples']" "$WORK/k.json")
	if kernel_samples_here; then
		check "k > 100" "$2: running threads sampled by the kernel" k="$k"
	else
		expect_contains "$(clrscope report "$1")" "the kernel does not sample" "$2: the kernel's refusal is reported"
	fi
}

for sampler in mixed kernel signal suspend; do
	# the suspending sampler's share of the time is capped, and its
	# suspensions are slow while the program starts (on a freshly booted
	# machine, under a hundred samples in the first 2 s): 4 s for it
	seconds=2
	[[ $sampler == suspend ]] && seconds=4
	for shape in osr frameless funclet recursion generic pinvoke beyondcopy dynamic; do
		s="$WORK/$shape-$sampler"
		library=()
		[[ $shape == beyondcopy ]] && library=("$CLRSCOPE_TEST_TOOLS/libclrscopecall.so")
		expect_status 0 "$shape under --sampler $sampler" -- \
			clrscope record -o "$s" --rate 1000 --validate 20 --sampler "$sampler" -- \
			dotnet "$(app Shapes)" "$shape" "$seconds" "${library[@]}"
		expect_shape "$s" "$shape" "$sampler" "$shape/$sampler"
		if [[ $sampler == kernel && $shape == beyondcopy ]]; then
			# the kernel's copies end in the native frame: those samples
			# are walked exactly, and the thread signalled for a while
			clrscope report --format json "$s" >"$WORK/k.json"
			if kernel_samples_here; then
				check "b >= 8" "$shape/$sampler: kernel samples deeper than the copy were walked exactly" \
					b="$(json "d['processes'][0]['agent']['beyond_copy']" "$WORK/k.json")"
			else
				skip_part "$shape/$sampler: kernel samples deeper than the copy: $KERNEL_SAMPLES_WHY"
			fi
		elif [[ $sampler == kernel ]]; then
			kernel_samples "$s" "$shape/$sampler"
		fi
	done
done

# dynamic methods made and collected all along (a new one every 10 ms): the
# runtime gives a collected one's FunctionID and code to the next, and each
# frame still has the name of the method that ran there (StepN calls
# SpinEven when N is even, SpinOdd when it is odd); and the same with each
# method in a collectible assembly of its own, unloaded when collected (the
# code map forgets what it kept when the runtime says a module goes)
for shape in dynamics collectibles; do
	case $shape in
	dynamics) pattern='dynamicClass\.Step(\d+);Clrscope\.TestApps\.Program\.Spin(Even|Odd)' ;;
	collectibles) pattern='Collect(\d+)\.Step;Clrscope\.TestApps\.Callees\.Spin(Even|Odd)' ;;
	esac
	for sampler in mixed kernel signal; do
		expect_status 0 "$shape under --sampler $sampler" -- \
			clrscope record -o "$WORK/$shape-$sampler" --rate 1000 --sampler "$sampler" -- dotnet "$(app Shapes)" "$shape" 3
		clrscope report --format collapsed "$WORK/$shape-$sampler" >"$WORK/folded"
		read -r good bad < <(python3 - "$WORK/folded" "$pattern" <<'PY'
import re, sys
good = bad = 0
for line in open(sys.argv[1]):
    stack, n = line.rsplit(" ", 1)
    m = re.search(sys.argv[2], stack)
    if m:
        if (int(m.group(1)) % 2 == 0) == (m.group(2) == "Even"):
            good += int(n)
        else:
            bad += int(n)
print(good, bad)
PY
)
		check "g > 500" "$shape/$sampler: samples in the generated methods" g="$good"
		check "b == 0" "$shape/$sampler: no frame has a collected method's name" b="$bad"
	done
done

# more compiled methods than the code map keeps at once: 400 chains of 40
# methods made at run time, each chain run in turn for 5 ms (16,000 bodies
# at tier 0, more at tier 1).  Every body sampled must be kept (a body the
# map cannot keep leaves its walks broken: the thread is walked in
# suspensions instead, whose samples land on the driver loop's GC poll, out
# of Spin), and every sample in Spin carries its whole chain.
expect_status 0 "manymethods under the default sampler" -- \
	clrscope record -o "$WORK/many" --rate 1000 --validate 20 -- dotnet "$(app Shapes)" manymethods 4
tid=$(awk '/^tid/{print $2}' "$WORK/out")
clrscope report --format collapsed --thread "$tid" "$WORK/many" >"$WORK/folded"
clrscope report --format json "$WORK/many" >"$WORK/r.json"
read -r total spin exact < <(python3 - "$WORK/folded" <<'PY'
import re, sys
total = spin = exact = 0
for line in open(sys.argv[1]):
    stack, n = line.rsplit(" ", 1)
    f, n = stack.split(";"), int(n)
    total += n
    if f[-1] != "Clrscope.TestApps.Program.Spin":
        continue
    spin += n
    run = "Clrscope.TestApps.Program+Many.Run"
    chain = f[f.index(run) + 1:] if run in f else []
    m = re.fullmatch(r"Chain(\d+)\.M0", chain[0]) if chain else None
    want = ["Chain%s.M%d" % (m.group(1), i) for i in range(40)] if m else []
    exact += n if m and chain == want + ["Clrscope.TestApps.Callees.Leaf", f[-1]] else 0
print(total, spin, exact)
PY
)
check "s >= 0.6 * t" "manymethods: most of the busy thread's samples are in Spin, none stuck on a safe point" \
	s="$spin" t="$total"
check "e >= 0.97 * s" "manymethods: samples in Spin carry their whole chain" e="$exact" s="$spin"
check "f <= 0.02 * n" "manymethods: captures were unwound (failed ones are walked in a suspension instead)" \
	f="$(json "d['processes'][0]['agent']['failed_walks']" "$WORK/r.json")" \
	n="$(json "d['processes'][0]['samples']" "$WORK/r.json")"
check "m == 0 and c >= 10" "manymethods: the validation dial found the fast walks right" \
	m="$(json "d['processes'][0]['agent']['stack_mismatches']" "$WORK/r.json")" \
	c="$(json "d['processes'][0]['agent']['stack_checks']" "$WORK/r.json")"

# time splits: CpuRatio's callers of one callee, 3:1, within 10% for the
# samplers that signal running threads (20% for the suspending one)
# (twelve seconds at 1 kHz: the samples' spread is wider than independent
# ones would have, and with six seconds' samples a loaded machine's ratio
# can reach 3.3; twelve make 10% over three of those spreads)
for sampler in mixed kernel signal suspend; do
	expect_status 0 "CpuRatio under --sampler $sampler" -- \
		clrscope record -o "$WORK/ratio-$sampler" --rate 1000 --sampler "$sampler" -- dotnet "$(app CpuRatio)" 12
	clrscope report --format json "$WORK/ratio-$sampler" >"$WORK/r.json"
	p='d["processes"][0]'
	heavy=$(json "[f['total'] for f in $p['functions'] if f['name'].endswith('Worker.Heavy')][0]" "$WORK/r.json")
	light=$(json "[f['total'] for f in $p['functions'] if f['name'].endswith('Worker.Light')][0]" "$WORK/r.json")
	main=$(json "[f['total'] for f in $p['functions'] if f['name'].endswith('Program.Main')][0]" "$WORK/r.json")
	if [[ $sampler == suspend ]]; then
		# the runtime stops threads where it can (safe points), which
		# bends the ratio for the suspending sampler as for EventPipe's
		# (both about 2.7-3.0)
		check "abs(h / max(l, 1) - 3.0) <= 0.6" "$sampler: Heavy:Light is 3:1 within 20% (safe-point bias)" \
			h="$heavy" l="$light"
	else
		check "abs(h / max(l, 1) - 3.0) <= 0.3" "$sampler: Heavy:Light is 3:1 within 10%" h="$heavy" l="$light"
	fi
	check "m >= 0.97 * (h + l)" "$sampler: Main is above every sample of Heavy and Light" m="$main" h="$heavy" l="$light"
done

# a real web stack under load (ASP.NET Core, Kestrel, the thread pool,
# async state machines, OpenSSL): the fast walks of its busy threads equal
# the runtime's own walks.  A fixed rate of requests (3,200 a second), as a
# server mostly sees: its threads work in short bursts and park between
# them (under as many requests as it can take they hardly park)
# web_run DIR [RECORD OPTION...]: WebHash under that load, recorded at
# 1 kHz with every 10th fast walk checked; its JSON report in DIR.json
web_run() {
	local dir=$1 port=$((20000 + RANDOM % 20000)) rec rc=0 requests
	shift
	local how=${*:-the default sampler}
	"$CLRSCOPE_BIN" record -o "$dir" --rate 1000 --validate 10 "$@" -- dotnet "$(app WebHash)" "$port" 8 \
		>"$dir.out" 2>"$dir.err" &
	rec=$!
	CHILDREN+=($rec)
	if wait_line "$dir.out" '^listening' 30; then
		hey -c 32 -q 100 -z 4s "http://127.0.0.1:$port/hash?n=16" >"$dir.hey" 2>&1 || true
		requests=$(awk '$1 == "[200]" {print $2}' "$dir.hey")
		check "r > 1000" "the web app served the load ($how)" r="${requests:-0}"
	else
		fail "WebHash did not start: $(cat "$dir.err")"
	fi
	wait "$rec" || rc=$?
	check "rc == 0" "the web app ran to its end under the profiler ($how)" rc="$rc"
	clrscope report --format json "$dir" >"$dir.json"
	expect_whole_log "$dir.json" "web app ($how)"
}
# threads' CPU time and CPU samples in a JSON report: "workers_ms workers
# engine_ms engine all_ms all" (the pool's workers, the socket engine, all)
cpu_and_samples() {
	python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))["processes"][0]
out = []
for pick in (lambda t: t["name"] == ".NET TP Worker", lambda t: t["name"] == ".NET Sockets", lambda t: True):
    ts = [t for t in p["threads"] if t["cpu_ms"] and pick(t)]
    out += [sum(t["cpu_ms"] for t in ts), sum(t["samples"] for t in ts)]
print(*out)' "$1"
}
web_run "$WORK/web"
checks=$(json "d['processes'][0]['agent']['stack_checks']" "$WORK/web.json")
bad=$(json "d['processes'][0]['agent']['stack_mismatches']" "$WORK/web.json")
check "c >= 50" "web app: the validation dial repeated fast walks exactly" c="$checks"
check "m < 0.01 * c" "web app: fast walks equal the runtime's walks (under 1% differ)" m="$bad" c="$checks"
# its threads work in bursts much shorter than a tick, and a capture that
# finds one running stands for the CPU time it used since the last one that
# did: each thread's CPU samples (one a millisecond) add up to its own CPU
# clock (the pool's workers about 1.02 of it, all threads 0.99-1.00)
read -r workers_ms workers _ _ all_ms all <<<"$(cpu_and_samples "$WORK/web.json")"
check "c > 300 and 0.92 * c <= n <= 1.08 * c" "web app: the pool's workers' CPU samples add up to their CPU time" \
	n="$workers" c="$workers_ms"
check "0.92 * c <= n <= 1.08 * c" "web app: all threads' CPU samples add up to their CPU time" n="$all" c="$all_ms"
# the sockets thread waits in SystemNative_WaitForSocketEvents, a native
# frame placed at its call by its code (no rbp); every capture with rbp
# checks that placement, and a disagreement would be an agent warning
clrscope report "$WORK/web" >"$WORK/web.txt"
expect_not_contains "$(cat "$WORK/web.txt")" "disagreed with its frame pointer" \
	"web app: native frames placed by their code agree with their frame pointers"
# ASP.NET Core calls the endpoint through a delegate it compiles at run
# time (an expression tree: dynamicClass.lambda_method1), as dotnet-trace shows
clrscope report --format collapsed "$WORK/web" >"$WORK/web.folded"
n=$(grep -c 'dynamicClass\.lambda_method[0-9]*;Program+<>c__DisplayClass0_0\.<<Main>$>b__0' "$WORK/web.folded" || true)
check "n > 0" "web app: the request delegate's dynamic method sits above the endpoint" n="$n"

# the kernel sampler: the kernel's samples stand for the threads' time in
# their own code, signals for their time in the kernel, the socket engine's
# most of all (its CPU samples 0.95-0.99 of its CPU time, all threads'
# 0.96-0.97)
if kernel_samples_here; then
	web_run "$WORK/webk" --sampler kernel
	check "k > 500" "web app, kernel sampler: the kernel sampled its threads" \
		k="$(json "d['processes'][0]['agent']['kernel_samples']" "$WORK/webk.json")"
	check "m < 0.01 * c and c >= 20" "web app, kernel sampler: fast walks equal the runtime's walks (under 1% differ)" \
		m="$(json "d['processes'][0]['agent']['stack_mismatches']" "$WORK/webk.json")" \
		c="$(json "d['processes'][0]['agent']['stack_checks']" "$WORK/webk.json")"
	read -r _ _ engine_ms engine all_ms all <<<"$(cpu_and_samples "$WORK/webk.json")"
	check "c > 20 and 0.8 * c <= n <= 1.1 * c" \
		"web app, kernel sampler: the socket engine's CPU samples add up to its CPU time" n="$engine" c="$engine_ms"
	check "0.9 * c <= n <= 1.08 * c" "web app, kernel sampler: all threads' CPU samples add up to their CPU time" \
		n="$all" c="$all_ms"
else
	skip_part "web app, kernel sampler: $KERNEL_SAMPLES_WHY"
fi

# the dial: off, and bad values refused
expect_status 2 "--validate refuses a negative count" -- clrscope record --validate -1 -- true
expect_status 0 "--validate 0 turns the checks off" -- \
	clrscope record -o "$WORK/off" --rate 500 --validate 0 -- dotnet "$(app CpuRatio)" 1
clrscope report --format json "$WORK/off" >"$WORK/r.json"
check "c == 0" "no checks with validate=0" c="$(json "d['processes'][0]['agent']['stack_checks']" "$WORK/r.json")"
finish
