# The Shapes app's stacks, for the tests that check samples frame by frame
# (e2e.exact_stacks on .NET 10, e2e.runtime_* on the other runtimes).
# Sourced after testlib.sh.

# shape -> the expected chain below Main (each sample must follow it from
# the root for as long as it goes; frames outside it, such as the runtime's
# throw machinery, may end a sample, but an expected frame out of place
# means one was lost); [native] stands for a run of native code, labelled
# by its module ("[libc.so.6]")
declare -A SHAPE_CHAIN=(
	[osr]="Osr.Run Osr.Step Spin"
	[frameless]="Frameless.Run Frameless.Mix"
	[funclet]="Funclet.Run Funclet.Catcher Spin"
	[recursion]="Recursion.Run $(printf 'Recursion.Recurse %.0s' $(seq 300))Spin"
	[generic]="Generic.Run Box\`1.Apply Generic+<>c.<Run>b__0_0 Spin"
	[pinvoke]="PInvoke.Run [native] PInvoke.Compare Spin"
	[beyondcopy]="BeyondCopy.Run [native] BeyondCopy.Enter $(printf 'BeyondCopy.Level %.0s' $(seq 40))Spin"
	[dynamic]="Dynamic.Run dynamicClass.Spin64 Spin"
)
# DoStackSnapshot gives no frame to a method without metadata: every walk
# of the suspending sampler is one of its
declare -A SUSPEND_CHAIN=([dynamic]="Dynamic.Run Spin")

# exact_share FOLDED CHAIN [BAD]: the share of samples that follow the
# chain, of those the share that reach its end, and the samples (printed as
# "share deep total"); the commonest stacks that do not follow it into the
# file BAD (runs of one frame shortened to "frame*N")
exact_share() {
	python3 - "$1" "$2" "${3:-/dev/null}" <<'PY'
import collections, re, sys
want = ["Main"] + sys.argv[2].split()
names = set(want) - {"[native]"}  # native code may end any sample

def run(f):
    """a run of native code: [native], or its module's label"""
    return re.fullmatch(r"\[(native|[^] ]*\.so[^] ]*)\]", f) is not None

def native(f):
    """a native leaf: a run, a stub (by kind or not), the JIT, the profiler, or a function by name or address"""
    return (run(f) or f in ("[runtime stub]", "[JIT compilation]", "[clrscope]") or f.startswith("[stub: ") or "!" in f
            or re.search(r"\+0x[0-9a-f]+$", f))

good = total = deep = 0
bad = collections.Counter()
for line in open(sys.argv[1]):
    stack, n = line.rsplit(" ", 1)
    n = int(n)
    frames = [f.replace("Clrscope.TestApps.Program.", "").replace("Clrscope.TestApps.Program+", "")
              for f in stack.split(";")]
    if frames and frames[0].startswith("pid_"):
        frames = frames[1:]
    if frames and frames[0] == "[thread start]":
        frames = frames[1:]   # the thread's native root
    total += n
    ok = len(frames) > 0
    for i, f in enumerate(frames):
        if i < len(want) and (f == want[i] or (want[i] == "[native]" and run(f))):
            continue
        # a callee outside the chain may end the sample; an expected name
        # out of place (or anything after the chain's end) may not
        ok = f not in names and (i < len(want) or native(f)) and all(g not in names for g in frames[i:])
        break
    good += n if ok else 0
    if not ok:
        runs = []
        for f in frames:
            if runs and runs[-1][0] == f:
                runs[-1][1] += 1
            else:
                runs.append([f, 1])
        bad[";".join(f if k == 1 else "%s*%d" % (f, k) for f, k in runs)] += n
    deep += n if ok and len(frames) >= len(want) and all(
        f == w or (w == "[native]" and run(f)) for f, w in zip(frames, want)) else 0
print(good / max(total, 1), deep / max(total, 1), total)
with open(sys.argv[3], "w") as out:
    for stack, n in bad.most_common(5):
        print(n, stack, file=out)
PY
}

# expect_shape SESSION SHAPE SAMPLER WHAT: the session recorded Shapes SHAPE
# under SAMPLER with --validate (its output, with the busy thread's "tid",
# in $WORK/out): the busy thread's samples follow the shape's chain, most
# reach its leaf, and the fast walks the validation dial repeated equal the
# runtime's.  WHAT starts each check's description.
expect_shape() {
	local session=$1 shape=$2 sampler=$3 what=$4 tid want share deep total
	tid=$(awk '/^tid/{print $2}' "$WORK/out")
	clrscope report --format collapsed --thread "$tid" "$session" >"$WORK/folded"
	want=${SHAPE_CHAIN[$shape]}
	[[ $sampler == suspend && -n "${SUSPEND_CHAIN[$shape]:-}" ]] && want=${SUSPEND_CHAIN[$shape]}
	read -r share deep total < <(exact_share "$WORK/folded" "$want" "$WORK/bad-stacks")
	check "x >= 0.97" "$what: samples carry exactly the expected frames" x="$share"
	if awk -v x="$share" 'BEGIN { exit !(x < 0.97) }'; then
		sed "s/^/$what: not the expected frames: /" "$WORK/bad-stacks" >&2
	fi
	# the suspending sampler stops threads where they can stop (safe
	# points: never in a frameless leaf, mostly at the P/Invoke's
	# transition), and its suspensions are limited to a tenth of the time
	if [[ $sampler == suspend ]]; then
		check "t > 100" "$what: the busy thread was sampled" t="$total"
	else
		check "t > 300" "$what: the busy thread was sampled" t="$total"
		check "x >= 0.85" "$what: most samples reach the busy leaf" x="$deep"
	fi
	if [[ $sampler == mixed || $sampler == kernel ]]; then
		clrscope report --format json "$session" >"$WORK/r.json"
		expect_whole_log "$WORK/r.json" "$what"
		local checks bad
		checks=$(json "d['processes'][0]['agent']['stack_checks']" "$WORK/r.json")
		bad=$(json "d['processes'][0]['agent']['stack_mismatches']" "$WORK/r.json")
		check "c >= 10" "$what: the validation dial repeated fast walks exactly" c="$checks"
		check "m < 0.01 * c" "$what: fast walks equal the runtime's walks (under 1% differ)" m="$bad" c="$checks"
	fi
}
