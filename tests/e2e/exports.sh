# Exports and selections: speedscope's file format (sampled profiles over a
# shared frame table), and --pid, --thread, --from and --to for every format.
source "$CLRSCOPE_TESTLIB"
expect_status 0 "record CpuRatio" -- clrscope record -o "$WORK/s" --rate 200 -- dotnet "$(app CpuRatio)" 2.5

clrscope report --format speedscope "$WORK/s" >"$WORK/ss.json"
python3 - "$WORK/ss.json" <<'PY' && pass "speedscope: schema, frame table, samples and weights agree" || fail "bad speedscope file"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["$schema"] == "https://www.speedscope.app/file-format-schema.json"
frames = d["shared"]["frames"]
assert frames and all(isinstance(f["name"], str) for f in frames)
assert len({f["name"] for f in frames}) == len(frames), "frames are shared, not repeated"
assert d["profiles"] and 0 <= d["activeProfileIndex"] < len(d["profiles"])
for p in d["profiles"]:
    assert p["type"] == "sampled" and p["unit"] == "none" and p["startValue"] == 0
    assert len(p["samples"]) == len(p["weights"]) > 0
    assert all(0 <= i < len(frames) for s in p["samples"] for i in s)
    assert p["endValue"] == sum(p["weights"])
    burn = [w for s, w in zip(p["samples"], p["weights"]) if frames[s[-1]]["name"].endswith("Worker.Burn")]
    assert sum(burn) > 0.7 * p["endValue"], "Burn is the leaf of most samples"
PY
# and against the schema the speedscope package itself ships
checker=$(cd "$(dirname "$CLRSCOPE_TESTLIB")/../tools/speedscope-check" && pwd)
dest="$(cd "$(dirname "$CLRSCOPE_BIN")/.." && pwd)/speedscope-check"
if command -v node >/dev/null && command -v npm >/dev/null; then
	mkdir -p "$dest"
	cp "$checker/package.json" "$checker/package-lock.json" "$checker/validate.js" "$dest/"
	if [[ ! -d "$dest/node_modules/ajv" || ! -d "$dest/node_modules/speedscope" ]]; then
		(cd "$dest" && npm ci --no-audit --no-fund --silent >/dev/null 2>&1) || fail "npm ci of the speedscope checker failed"
	fi
	out=$(node "$dest/validate.js" "$WORK/ss.json" 2>&1) && pass "speedscope's own schema accepts it: $out" ||
		fail "speedscope's schema rejects it: $out"
else
	fail "node and npm are needed to check the speedscope export (scripts/deps.sh installs them)"
fi

clrscope report --format json "$WORK/s" >"$WORK/all.json"
p='d["processes"][0]'
total=$(json "$p['samples']" "$WORK/all.json")
clrscope report --format json --from 1 --to 2 "$WORK/s" >"$WORK/win.json"
win=$(json "$p['samples']" "$WORK/win.json")
check "abs(w - 200) <= 40" "--from 1 --to 2 keeps one second of samples" w="$win"
check "x == 0" "nothing before --from" x="$(json "$p['samples_per_second'][0]" "$WORK/win.json")"
tid=$(json "max($p['threads'], key=lambda t: t['samples'])['os_tid']" "$WORK/all.json")
busiest=$(json "max(t['samples'] for t in $p['threads'])" "$WORK/all.json")
clrscope report --format json --thread "$tid" "$WORK/s" >"$WORK/thr.json"
check "a == b" "--thread keeps exactly that thread's samples" a="$(json "$p['samples']" "$WORK/thr.json")" b="$busiest"
folded=$(clrscope report --format collapsed --thread "$tid" --from 1 "$WORK/s" | awk '{n += $NF} END {print n}')
clrscope report --format json --thread "$tid" --from 1 "$WORK/s" >"$WORK/both.json"
check "a == b" "collapsed and json agree under the same selection" a="$folded" b="$(json "$p['samples']" "$WORK/both.json")"
ss=$(clrscope report --format speedscope --from 1 "$WORK/s" | python3 -c 'import json,sys; print(json.load(sys.stdin)["profiles"][0]["endValue"])')
clrscope report --format json --from 1 "$WORK/s" >"$WORK/from.json"
check "a == b" "speedscope honours the selection" a="$ss" b="$(json "$p['samples']" "$WORK/from.json")"
check "t > w" "a window holds fewer samples than the whole" t="$total" w="$win"
expect_status 2 "--to before --from" -- clrscope report --from 2 --to 1 "$WORK/s"
expect_status 2 "--thread that is not a number" -- clrscope report --thread main "$WORK/s"
finish
