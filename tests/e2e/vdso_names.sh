# Functions in the vDSO by name: Bursts' main thread spins on
# Stopwatch.GetTimestamp, whose clock_gettime runs in the vDSO.  The vDSO
# has no file; the agent logs its frames by the vDSO's name and build id,
# and the report names them from its own vDSO (the same kernel) as the
# kernel's .dynsym does: linux-vdso.so.1!__vdso_clock_gettime, not the
# label of an unnamed run, "[linux-vdso.so.1]".
source "$CLRSCOPE_TESTLIB"
expect_status 0 "record Bursts (a Stopwatch loop) for 2 s" -- \
	clrscope record -o "$WORK/s" -- dotnet "$(app Bursts)" 2
clrscope report --format json "$WORK/s" >"$WORK/r.json"
# the vDSO's samples (self, CPU): named, unnamed; all samples; what the
# report says of the module
read -r named unnamed all names <<<"$(python3 - "$WORK/r.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))["processes"][0]
vdso = [f for f in p["functions"] if f["module"] == "linux-vdso.so.1"]
named = sum(f["self"] for f in vdso if f["name"] == "linux-vdso.so.1!__vdso_clock_gettime")
unnamed = sum(f["self"] for f in p["functions"] if f["name"] == "[linux-vdso.so.1]")
mods = [m["names"] for m in p["native_modules"] if m["path"] == "linux-vdso.so.1"]
print(named, unnamed, p["samples"], mods[0] if mods else "none")
PY
)"
check "n >= 0.05 * all" "the Stopwatch loop's clock_gettime is named __vdso_clock_gettime" n="$named" all="$all"
expect_eq "$unnamed" 0 "no sample is left in an unnamed [linux-vdso.so.1] frame"
expect_eq "$names" "exports" "the report says the vDSO's exported functions are named"
text=$(clrscope report "$WORK/s")
expect_contains "$text" "linux-vdso.so.1!__vdso_clock_gettime  [linux-vdso.so.1]" "the text report names it too"
grep -qE '[0-9]  \[linux-vdso\.so\.1\]$' <<<"$text" && fail "the text report has an unnamed vDSO frame" ||
	pass "... and has no unnamed vDSO frame"
finish
