# The agent's tables are bounded: with CLRSCOPE_TABLE_CAP=64 a program
# whose stacks need more (two threads 100 frames deep) makes new id spaces
# again and again; the agent says so (at the 1st, 10th, 100th ...), the
# reader never mixes ids up: nothing bad, both threads' leaf functions
# sampled, and every one of those samples still under the 100 frames of
# Deep.Descend above it (each stack's chain resolves across the spaces).
source "$CLRSCOPE_TESTLIB"
dll=$(app DeepThreads)
expect_status 0 "record with a table cap of 64" -- env CLRSCOPE_TABLE_CAP=64 "$CLRSCOPE_BIN" record --rate 1000 \
	-o "$WORK/s" -- dotnet "$dll" 2 100 3 busy=1
clrscope report --format json --time wall "$WORK/s" >"$WORK/r.json"
said=$(json "len([m for m in d['processes'][0]['messages'] if 'starts a new id space' in m['text']])" "$WORK/r.json")
last=$(json "max([int(m['text'].split('(')[1].split(' ')[0]) for m in d['processes'][0]['messages'] if 'new id space' in m['text']] or [0])" "$WORK/r.json")
check "s >= 2 and s <= 5" "the new id spaces are said, but not every one" s="$said"
check "l >= 10" "there were many of them" l="$last"
check "b == 0" "no bad records" b="$(json "d['processes'][0]['log']['bad_records']" "$WORK/r.json")"
count() { json "sum(f['$2'] for f in d['processes'][0]['functions'] if f['name'].endswith('$1'))" "$WORK/r.json"; }
work=$(count Deep.Work self) sleep=$(count Thread.Sleep self) descend=$(count Deep.Descend total)
check "w > 50 and s > 50" "the busy and the sleeping thread are both sampled" w="$work" s="$sleep"
check "d >= w + s" "their samples all sit under Deep.Descend" d="$descend" w="$work" s="$sleep"
finish
