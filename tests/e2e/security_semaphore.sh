# The agent's control semaphore made again by another user after it was
# removed: clrscope refuses to post it and says whose it is, and the agent
# notices and says that dials cannot reach it any more.  Needs root (a
# throwaway user owns the impostor).
source "$CLRSCOPE_TESTLIB"
[[ $(id -u) == 0 ]] || skip "needs root (a throwaway user owns the impostor)"
user=clrscope-m$$
useradd --system --no-create-home --shell /usr/sbin/nologin "$user"
trap 'rm -f /dev/shm/.clrscope-impostor-$$; userdel "$user" 2>/dev/null || true; cleanup' EXIT
uid=$(id -u "$user")

"$CLRSCOPE_BIN" record -o "$WORK/s" --rate 100 -- dotnet "$(app Spin)" 30 >"$WORK/spin.out" 2>"$WORK/spin.err" &
rec=$!
CHILDREN+=($rec)
wait_line "$WORK/spin.out" '^tick 2' 30 || fail "Spin did not start: $(cat "$WORK/spin.err")"
pid=$(awk '/^pid / {print $2; exit}' "$WORK/spin.out")
CHILDREN+=("$pid")
expect_status 0 "a dial before" -- clrscope dial "$WORK/s" rate=150
control=$(clrscope report --format json "$WORK/s" | python3 -c 'import json,sys; print(json.load(sys.stdin)["processes"][0]["control"])')
file=/dev/shm/sem.${control#/}
[[ -f "$file" ]] || fail "no semaphore file $file"
# the same kind of file, the other user's, put in its place at once
cp "$file" "/dev/shm/.clrscope-impostor-$$"
chown "$user" "/dev/shm/.clrscope-impostor-$$"
chmod 0666 "/dev/shm/.clrscope-impostor-$$"
mv -f "/dev/shm/.clrscope-impostor-$$" "$file"
expect_status 1 "a dial through the impostor" -- clrscope dial --timeout 2 "$WORK/s" rate=300
expect_contains "$ERR" "is not the agent's" "dial refuses to post it"
expect_contains "$ERR" "owner uid $uid" "and says whose it is"
ok=0
for _ in $(seq 30); do
	clrscope report "$WORK/s" 2>/dev/null | grep -q "made again by uid $uid" && { ok=1; break; }
	sleep 0.1
done
((ok)) && pass "the agent says the semaphore is someone else's" || fail "no warning: $(clrscope report "$WORK/s" | grep agent)"
kill -INT "$pid"
wait "$rec" || true
rm -f "$file"
finish
