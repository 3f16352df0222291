# Logical stacks: the Async app's RunAsync awaits QuoteAsync and CheckAsync,
# both await SumAsync, which resumes after a Task.Yield on a pool thread and
# spends Quote's three units or Check's one in Kernel.  Every Kernel sample
# names its true async callers above an [await] frame, in a 3:1 ratio, or an
# [await ?] root where they could not be known (few), or a chain cut short
# where a caller had not registered its await yet (fewer), never another caller;
# --stacks physical gives the dispatch loop's stacks of the same samples, and
# the async dial off records those.  Each await shape of the issue (ConfigureAwait(false),
# ValueTask, Task<string>, a chain eleven deep, WhenAll, synchronous
# completions) gives its chain; .NET 8 and 9 (the self-contained copies) give the same chains.
source "$CLRSCOPE_TESTLIB"

P='Clrscope\.TestApps\.Program'
sm() { echo "$P\\+<$1>d__[0-9]+\\.MoveNext"; }
kernel="$P\\.Kernel"
# samples of lines matching the regex (collapsed: "frames count")
count() { { grep -E "$1 [0-9]+\$" "$2" || true; } | awk '{n += $NF} END {print n+0}'; }

# logical_ratio LABEL DIR QUOTE CHECK SUM: the chains of the tasks shapes
logical_ratio() {
	local label=$1 dir=$2 quote=$3 check=$4 sum=$5
	clrscope report --format collapsed "$dir" >"$dir.folded"
	local q c all unresolved cut
	q=$(count "^$(sm RunAsync);$(sm "$quote");\\[await\\];$(sm "$sum");$kernel" "$dir.folded")
	c=$(count "^$(sm RunAsync);$(sm "$check");\\[await\\];$(sm "$sum");$kernel" "$dir.folded")
	all=$(count "$kernel" "$dir.folded")
	unresolved=$(count "^\\[await \\?\\];$(sm "$sum");$kernel" "$dir.folded")
	# a sample taken as SumAsync resumed before a caller, preempted on
	# another thread, had registered its await, and still so at the tick
	# after: the chain ends there (cut short: every caller shown is true)
	cut=$(count "^(($(sm "$quote")|$(sm "$check"));)?\\[await\\];$(sm "$sum");$kernel" "$dir.folded")
	check "q > 300" "$label: enough samples of RunAsync;$quote;[await];$sum;Kernel" q="$q"
	check "abs(q / max(c, 1) - 3.0) <= 0.6" "$label: $quote:$check is 3:1 within 20%" q="$q" c="$c"
	check "q + c + u + x == a" "$label: every Kernel sample is under Quote's or Check's chain, unresolved or cut: no other caller" \
		q="$q" c="$c" u="$unresolved" x="$cut" a="$all"
	[[ $((q + c + unresolved + cut)) == "$all" ]] ||
		echo "$label: other lines: $(grep -E "$kernel [0-9]+\$" "$dir.folded" |
			{ grep -vE "^(($(sm RunAsync);)?($(sm "$quote")|$(sm "$check"));)?\\[await( \\?)?\\];$(sm "$sum");$kernel " || true; } | head -3)" >&2
	check "u <= 0.05 * a" "$label: at most 5% of them unresolved" u="$unresolved" a="$all"
	check "x <= 0.02 * a" "$label: at most 2% cut short" x="$cut" a="$all"
}

# physical LABEL DIR [OPTION]: Kernel's samples under the dispatch loop, no [await]
physical() {
	local label=$1 dir=$2
	shift 2
	clrscope report --format collapsed "$@" "$dir" >"$dir.physical"
	local all dispatched
	all=$(count "$kernel" "$dir.physical")
	dispatched=$(count "System\\.Threading\\.ThreadPoolWorkQueue\\.Dispatch;.*$(sm SumAsync);$kernel" "$dir.physical")
	check "a > 300 and d == a" "$label: every Kernel sample is under ThreadPoolWorkQueue.Dispatch" a="$all" d="$dispatched"
	expect_not_contains "$(cat "$dir.physical")" "[await" "$label: no [await] frame"
}

s="$WORK/tasks"
expect_status 0 "record Async at 400 Hz" -- clrscope record -o "$s" --rate 400 -- dotnet "$(app Async)" 5
expect_contains "$OUT" "done " "the program ran its rounds"
logical_ratio "tasks" "$s" QuoteAsync CheckAsync SumAsync
physical "tasks --stacks physical" "$s" --stacks physical
check "p == l" "--stacks physical counts the same Kernel samples" \
	p="$(count "$kernel" "$s.physical")" l="$(count "$kernel" "$s.folded")"
clrscope report --format json "$s" >"$s.json"
r=$(json "d['processes'][0]['agent']['async_resolved']" "$s.json")
u=$(json "d['processes'][0]['agent']['async_unresolved']" "$s.json")
check "r >= q" "the agent counts its resolved samples (async_resolved)" r="$r" q="$(count "\\[await\\];" "$s.folded")"
check "u < 0.05 * r" "and few unresolved (async_unresolved)" u="$u" r="$r"

s="$WORK/off"
expect_status 0 "record Async with --async off" -- clrscope record -o "$s" --rate 400 --async off -- dotnet "$(app Async)" 3
physical "--async off" "$s"

s="$WORK/configure"
expect_status 0 "record Async configure" -- clrscope record -o "$s" --rate 400 -- dotnet "$(app Async)" 4 configure
logical_ratio "ConfigureAwait(false)" "$s" QuoteAsync CheckAsync SumAsync
s="$WORK/valuetask"
expect_status 0 "record Async valuetask" -- clrscope record -o "$s" --rate 400 -- dotnet "$(app Async)" 4 valuetask
logical_ratio "ValueTask" "$s" QuoteValueAsync CheckValueAsync SumValueAsync

s="$WORK/reference"
expect_status 0 "record Async reference" -- clrscope record -o "$s" --rate 400 -- dotnet "$(app Async)" 4 reference
logical_ratio "Task<string> (shared box code)" "$s" QuoteTextAsync CheckTextAsync SumTextAsync

s="$WORK/deep"
expect_status 0 "record Async deep" -- clrscope record -o "$s" --rate 400 -- dotnet "$(app Async)" 3 deep
clrscope report --format collapsed "$s" >"$s.folded"
deep8="$(sm DeepAsync);$(sm DeepAsync);$(sm DeepAsync);$(sm DeepAsync);$(sm DeepAsync);$(sm DeepAsync);$(sm DeepAsync);$(sm DeepAsync)"
q=$(count "^$(sm RunAsync);$(sm QuoteAsync);$deep8;\\[await\\];$(sm SumAsync);$kernel" "$s.folded")
a=$(count "$kernel" "$s.folded")
check "q > 0.6 * a" "a chain eleven deep: RunAsync;QuoteAsync;DeepAsync x8;[await];SumAsync;Kernel" q="$q" a="$a"

s="$WORK/whenall"
expect_status 0 "record Async whenall" -- clrscope record -o "$s" --rate 400 -- dotnet "$(app Async)" 3 whenall
clrscope report --format collapsed "$s" >"$s.folded"
q=$(count "^$(sm RunAsync);\\[WhenAll\\];$(sm QuoteAsync);\\[await\\];$(sm SumAsync);$kernel" "$s.folded")
c=$(count "^$(sm RunAsync);\\[WhenAll\\];$(sm CheckAsync);\\[await\\];$(sm SumAsync);$kernel" "$s.folded")
a=$(count "$kernel" "$s.folded")
check "q + c > 0.9 * a and q > 2 * c" "Task.WhenAll: RunAsync;[WhenAll];QuoteAsync (or CheckAsync);[await];SumAsync;Kernel" q="$q" c="$c" a="$a"

s="$WORK/sync"
expect_status 0 "record Async sync" -- clrscope record -o "$s" --rate 400 -- dotnet "$(app Async)" 3 sync
clrscope report --format collapsed "$s" >"$s.folded"
# awaits that complete synchronously: the frames above RunAsync's resume are the thread's own
q=$(count "^\\[await\\];$(sm RunAsync);$P\\.QuoteAsync;.*$(sm QuoteAsync);$P\\.SumAsync;.*$(sm SumAsync);$kernel" "$s.folded")
a=$(count "$kernel" "$s.folded")
check "q > 0.6 * a" "synchronous completions: [await];RunAsync;QuoteAsync;...;SumAsync;Kernel as the thread ran them" q="$q" a="$a"

# the other runtimes the apps are built for
for tfm in net8.0 net9.0; do
	apps=$CLRSCOPE_APPS/$tfm
	if [[ -f "$apps/unavailable" || ! -x "$apps/Async/Async" ]]; then
		skip_part "$tfm: no self-contained Async ($(head -1 "$apps/unavailable" 2>/dev/null || echo "not built"))"
		continue
	fi
	s="$WORK/$tfm"
	expect_status 0 "$tfm: record Async" -- clrscope record -o "$s" --rate 400 -- "$apps/Async/Async" 5
	logical_ratio "$tfm" "$s" QuoteAsync CheckAsync SumAsync
	physical "$tfm --stacks physical" "$s" --stacks physical
done
finish
