# Native functions by name, read from their modules by the report (never
# in the target): NativeWork spends its time in a library of ours, in
# burn_inner (a function no export names), and in OpenSSL's SHA-256.  The
# leaf of a sample in native code is the function it was in, named from the
# module's full symbol table; a stripped copy names it by its address in
# the file (exactly burn_inner's, as nm gives it); a module deleted or
# replaced on disk after the run is named by address too, never by the new
# file's symbols, and the report says why for each module.  A stripped copy
# whose debug file is beside it is named from that file, found by its
# .gnu_debuglink as gdb finds it; alone, from a symbol directory named by
# --symbols, CLRSCOPE_SYMBOLS or the config file, where the debug file sits
# by build id; the report says where each module's names came from.  The
# native frames from a leaf to the managed code that called it are each
# named: a runtime helper between an allocating method and memset.
source "$CLRSCOPE_TESTLIB"
tools="$CLRSCOPE_TEST_TOOLS"
for f in libclrscopeburn1.so libclrscopeburn2.so; do
	[[ -f $tools/$f ]] || { fail "missing $tools/$f (the build makes it)"; finish; }
done
lib="$WORK/lib"
mkdir -p "$lib"
cp "$tools/libclrscopeburn1.so" "$lib/libburn.so"
cp "$tools/libclrscopeburn1.so" "$lib/libgone.so"
cp "$tools/libclrscopeburn1.so" "$lib/librepl.so"
strip --strip-unneeded -o "$lib/libstripped.so" "$tools/libclrscopeburn1.so"
inner=$(nm "$tools/libclrscopeburn1.so" | awk '$3 == "burn_inner" {print $1}')
[[ -n $inner ]] || fail "nm finds burn_inner in libclrscopeburn1.so"
inner=$(printf '%x' "0x${inner:-0}")

for name in burn stripped gone repl; do
	expect_status 0 "record NativeWork calling into lib$name.so" -- \
		clrscope record -o "$WORK/s-$name" -- dotnet "$(app NativeWork)" lib "$lib/lib$name.so" 2
done
rm "$lib/libgone.so"
cp "$tools/libclrscopeburn2.so" "$lib/librepl.so"

# top NAME: the hottest function by self time (CPU), its share, and what
# the report says of the module lib<NAME>.so
top() {
	clrscope report --format json "$WORK/s-$1" >"$WORK/r-$1.json"
	python3 - "$WORK/r-$1.json" "lib$1.so" <<'EOF'
import json, sys
p = json.load(open(sys.argv[1]))["processes"][0]
f = max(p["functions"], key=lambda f: f["self"])
mods = [m["names"] for m in p["native_modules"] if m["path"].endswith("/" + sys.argv[2])]
print(f["name"], f["module"], round(f["self"] / max(p["samples"], 1), 3), mods[0] if mods else "none")
EOF
}

read -r fn module share names <<<"$(top burn)"
expect_eq "$fn" "libburn.so!burn_inner" "a full symbol table names the internal function"
expect_eq "$module" "libburn.so" "... in its module"
check "s >= 0.7" "... which holds most of the CPU samples" s="$share"
expect_eq "$names" "symbols" "the report says the module had its symbols"
clrscope report --format collapsed "$WORK/s-burn" >"$WORK/burn.folded"
check "c >= 0.95 * n" "its samples are under BurnFor, the method that calls into it" \
	n="$(awk '/libburn\.so!burn_inner [0-9]+$/ {n += $NF} END {print n+0}' "$WORK/burn.folded")" \
	c="$(awk '/Program\.BurnFor;.*libburn\.so!burn_inner [0-9]+$/ {n += $NF} END {print n+0}' "$WORK/burn.folded")"

read -r fn module share names <<<"$(top stripped)"
expect_eq "$fn" "libstripped.so+0x$inner" "a stripped module names it by its address in the file (nm: $inner)"
expect_eq "$names" "exports" "the report says only exported functions have names there"
clrscope report "$WORK/s-stripped" >"$WORK/stripped.txt"
expect_contains "$(cat "$WORK/stripped.txt")" "libstripped.so: stripped: only exported functions are named" \
	"the text report says so too"

read -r fn module share names <<<"$(top gone)"
expect_eq "$fn" "libgone.so+0x$inner" "a module gone from disk is named by address"
expect_eq "$names" "missing" "the report says it is not on disk"

read -r fn module share names <<<"$(top repl)"
expect_eq "$fn" "librepl.so+0x$inner" "a module replaced on disk is named by address, not by the new file"
expect_eq "$names" "replaced" "the report says it was replaced (another build id)"

# A stripped library: its debug file beside it, then alone, then with its
# debug file in a symbol directory by build id (.build-id/NN/REST.debug)
stripped="$CLRSCOPE_TEST_TOOLS/libclrscopeburnstripped.so"
[[ -f $stripped && -f $stripped.dbg ]] || fail "missing $stripped and its .dbg (the build makes them)"
mkdir -p "$WORK/beside" "$WORK/alone"
cp "$stripped" "$stripped.dbg" "$WORK/beside/"
cp "$stripped" "$WORK/alone/"
for where in beside alone; do
	expect_status 0 "record NativeWork calling into the stripped library, $where" -- \
		clrscope record -o "$WORK/s-$where" -- dotnet "$(app NativeWork)" lib "$WORK/$where/libclrscopeburnstripped.so" 2
done
# named SESSION [REPORT OPTION...]: the hottest function, and where the
# stripped module's names came from: "name source debug_file build_id"
named() {
	local session=$1
	shift
	clrscope report --format json "$@" "$session" >"$WORK/named.json"
	python3 - "$WORK/named.json" <<'EOF2'
import json, sys
p = json.load(open(sys.argv[1]))["processes"][0]
f = max(p["functions"], key=lambda f: f["self"])
m = [m for m in p["native_modules"] if m["path"].endswith("/libclrscopeburnstripped.so")]
m = m[0] if m else {}
print(f["name"], m.get("source"), m.get("debug_file"), m.get("build_id"))
EOF2
}
read -r fn source file id <<<"$(named "$WORK/s-beside")"
expect_eq "$fn" "libclrscopeburnstripped.so!burn_inner" "a stripped module is named from the debug file its debug link names"
expect_eq "$source $file" "debuglink $WORK/beside/libclrscopeburnstripped.so.dbg" "... and the report says which file, found how"
expect_contains "$(clrscope report "$WORK/s-beside")" \
	"libclrscopeburnstripped.so: symbols from $WORK/beside/libclrscopeburnstripped.so.dbg (its debug link)" \
	"the text report says so too"
read -r fn source file id <<<"$(named "$WORK/s-alone")"
expect_eq "$fn" "libclrscopeburnstripped.so+0x$inner" "alone, it is named by address"
expect_eq "$source" "dynsym" "... with only its exports named"
expect_contains "$(clrscope report "$WORK/s-alone")" \
	"no debug file found (debug link libclrscopeburnstripped.so.dbg, build id $id)" \
	"the text report says what debug file it looked for"
tree="$WORK/symbols"
mkdir -p "$tree/.build-id/${id:0:2}"
cp "$stripped.dbg" "$tree/.build-id/${id:0:2}/${id:2}.debug"
for how in option environment config; do
	case $how in
	option) read -r fn source file _ <<<"$(named "$WORK/s-alone" --symbols "$tree")" ;;
	environment) read -r fn source file _ <<<"$(CLRSCOPE_SYMBOLS="/nonexistent:$tree" named "$WORK/s-alone")" ;;
	config)
		mkdir -p "$WORK/cfg/clrscope"
		printf 'symbols = %s\n' "$tree" >"$WORK/cfg/clrscope/config"
		read -r fn source file _ <<<"$(XDG_CONFIG_HOME="$WORK/cfg" named "$WORK/s-alone")"
		;;
	esac
	expect_eq "$fn $source" "libclrscopeburnstripped.so!burn_inner build-id" \
		"a symbol directory given by $how names it from its debug file there, by build id"
	expect_eq "$file" "$tree/.build-id/${id:0:2}/${id:2}.debug" "... which the report names"
done
expect_status 2 "--symbols wants a directory" -- clrscope report --symbols "$WORK/nowhere" "$WORK/s-alone"
expect_contains "$ERR" "--symbols wants a directory of debug files: $WORK/nowhere" "... and says which was not"

# A library loaded by a relative path, busy in an epilog: after "pop %rbp"
# the unwind rule still reads rbp from a slot below the stack pointer (as
# compilers leave it; libcoreclr's small functions are caught at their ret
# so).  The captures walk on with the register and reach the managed
# caller; the module is named from the file the kernel says it maps.
cp "$tools/libclrscopeburn1.so" "$lib/libpopped.so"
expect_status 0 "record NativeWork in an epilog of lib/libpopped.so (a relative path)" -- \
	bash -c 'cd "$1" && shift && exec "$@"' _ "$WORK" "$CLRSCOPE_BIN" record -o "$WORK/s-popped" -- \
	dotnet "$(app NativeWork)" lib lib/libpopped.so 2 clrscope_native_burn_popped
read -r fn module share names <<<"$(top popped)"
expect_eq "$fn" "libpopped.so!clrscope_native_burn_popped" "the epilog's function is the leaf, named though loaded by a relative path"
check "s >= 0.7" "... with most of the CPU samples" s="$share"
clrscope report --format collapsed "$WORK/s-popped" >"$WORK/popped.folded"
check "n > 0 and c >= 0.97 * n" "its samples are under BurnFor" \
	n="$(awk '/libpopped\.so!clrscope_native_burn_popped [0-9]+$/ {n += $NF} END {print n+0}' "$WORK/popped.folded")" \
	c="$(awk '/Program\.BurnFor;ILStubClass\.IL_STUB_PInvoke;libpopped\.so!clrscope_native_burn_popped [0-9]+$/ {n += $NF} END {print n+0}' "$WORK/popped.folded")"
check "f <= 0.02 * n" "the signal's captures there were walked (failed ones are walked in a suspension instead)" \
	n="$(json "d['processes'][0]['samples']" "$WORK/r-popped.json")" \
	f="$(json "d['processes'][0]['agent']['failed_walks']" "$WORK/r-popped.json")"

# A thread busy on a stack of its own making, below its stack and with
# nothing mapped right above it (as code on a coroutine's or an alternate
# signal stack runs): the signal handler copies a thread's stack plainly only
# from a stack pointer inside the thread's own stack mapping (a copy from
# here up to the thread's stack top would fault in the program); elsewhere
# page by page.  The program lives, and its samples are under BurnFor.
expect_status 0 "record NativeWork on a stack of its own, on a thread" -- \
	clrscope record -o "$WORK/s-elsewhere" -- \
	dotnet "$(app NativeWork)" lib "$tools/libclrscopeburn1.so" 2 clrscope_native_burn_elsewhere thread
clrscope report --format collapsed "$WORK/s-elsewhere" >"$WORK/elsewhere.folded"
check "n > 100 and b >= 0.9 * n" "the burner's samples are under BurnFor" \
	n="$(awk '/Thread\.StartCallback/ {n += $NF} END {print n+0}' "$WORK/elsewhere.folded")" \
	b="$(awk '/Thread\.StartCallback;.*Program\.BurnFor/ {n += $NF} END {print n+0}' "$WORK/elsewhere.folded")"

# A program allocating in a loop clears the memory it is given in libc's
# memset, called by the runtime's allocation helpers: the native frames
# from the leaf to the allocating method are each a frame, so a helper of
# libcoreclr.so (named, or by its address) sits between the two.
expect_status 0 "record Allocator 50000000" -- \
	clrscope record -o "$WORK/s-alloc" -- dotnet "$(app Allocator)" 50000000
clrscope report --format collapsed "$WORK/s-alloc" >"$WORK/alloc.folded"
check "n >= 5 and c >= 0.9 * n" "memset's samples under AllocateMany have a libcoreclr.so frame between the two" \
	n="$(awk '/Program\.AllocateMany;.*libc\.so\.6![^;]*memset[^;]* [0-9]+$/ {n += $NF} END {print n+0}' "$WORK/alloc.folded")" \
	c="$(awk '/Program\.AllocateMany;(libcoreclr\.so[!+][^;]*|\[libcoreclr\.so\]);.*libc\.so\.6![^;]*memset[^;]* [0-9]+$/ {n += $NF} END {print n+0}' "$WORK/alloc.folded")"

expect_status 0 "record NativeWork hashing with SHA-256" -- \
	clrscope record -o "$WORK/s-sha" -- dotnet "$(app NativeWork)" sha 2
clrscope report --format json "$WORK/s-sha" >"$WORK/r-sha.json"
read -r fn module share <<<"$(json "' '.join(str(x) for x in (lambda p: (lambda f: (f['name'], f['module'], round(f['self'] / p['samples'], 3)))(max(p['functions'], key=lambda f: f['self'])))(d['processes'][0]))" "$WORK/r-sha.json")"
expect_eq "$module" "libcrypto.so.3" "the hashing loop's top function by self time is OpenSSL's"
check "s >= 0.5" "... with most of the CPU samples ($fn)" s="$share"
expect_contains "$fn" "libcrypto.so.3" "... named in its module"
finish
