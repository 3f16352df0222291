# The session root without XDG_RUNTIME_DIR is ${TMPDIR:-/tmp}/clrscope-UID,
# a name anyone can guess and make first: made by another user, made
# loose, or a symbolic link, it is refused with a message that says why and
# what to do, and nothing is recorded there.
source "$CLRSCOPE_TESTLIB"
uid=$(id -u)
mkdir -m 0755 "$WORK/tmp"
root=$WORK/tmp/clrscope-$uid
run() { expect_status 1 "$1" -- env -u XDG_RUNTIME_DIR TMPDIR="$WORK/tmp" "$CLRSCOPE_BIN" record -- true; }
expect_advice() {
	expect_contains "$ERR" "its name is predictable, so someone may have made it first" "$1: says why"
	expect_contains "$ERR" "Set XDG_RUNTIME_DIR or TMPDIR to a private directory of yours, or give -o DIR" "$1: says what to do"
	[[ -z "$(find "$root/" -mindepth 1 2>/dev/null)" ]] && pass "$1: nothing was made in it" || fail "$1: $(ls "$root")"
}
if [[ $uid == 0 ]]; then
	mkdir -m 0700 "$root" && chown 65534:65534 "$root"
	run "a root made by another user"
	expect_contains "$ERR" "belongs to another user" "it names the owner"
	expect_advice "another user's root"
	rmdir "$root"
else
	skip_part "a root made by another user: needs root (to give it away)"
fi
mkdir -m 0777 "$root"
run "a root writable by others"
expect_advice "a loose root"
rmdir "$root"
mkdir -m 0700 "$WORK/elsewhere"
ln -s "$WORK/elsewhere" "$root"
run "a root that is a symbolic link"
expect_contains "$ERR" "is a symbolic link" "it says it is a link"
[[ -z "$(ls "$WORK/elsewhere")" ]] && pass "nothing was made where it points" || fail "$(ls "$WORK/elsewhere")"
rm "$root"
expect_status 1 "a root of our own is made and used" -- env -u XDG_RUNTIME_DIR TMPDIR="$WORK/tmp" "$CLRSCOPE_BIN" record -- true
[[ $(stat -c '%a %u' "$root") == "700 $uid" ]] && pass "made private" || fail "$(stat -c '%a %u' "$root")"
[[ -n "$(ls "$root")" ]] && pass "a session was made in it" || fail "empty root"
finish
