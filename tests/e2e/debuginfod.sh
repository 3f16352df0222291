# Debug files from a debuginfod server: a real one (elfutils' debuginfod,
# serving a directory of debug files on a free port of this machine), as
# Debian's serves its libraries' debug files.  NativeWork burns its time in
# a stripped library with no debug file anywhere on disk: with
# DEBUGINFOD_URLS naming the server, the report names burn_inner from the
# debug file the server sends (by the module's build id) and says it came
# from debuginfod; the file stays in libdebuginfod's cache, which names it
# again once the server is gone.  Without DEBUGINFOD_URLS no server is
# asked.
source "$CLRSCOPE_TESTLIB"
command -v debuginfod >/dev/null || skip "no debuginfod here (Debian's debuginfod package; scripts/deps.sh installs it)"

stripped="$CLRSCOPE_TEST_TOOLS/libclrscopeburnstripped.so"
[[ -f $stripped && -f $stripped.dbg ]] || { fail "missing $stripped and its .dbg (the build makes them)"; finish; }
mkdir -p "$WORK/lib" "$WORK/served"
cp "$stripped" "$WORK/lib/"
cp "$stripped.dbg" "$WORK/served/"
inner=$(printf '%x' "0x$(nm "$stripped.dbg" | awk '$3 == "burn_inner" {print $1}')")

expect_status 0 "record NativeWork calling into a stripped library" -- \
	clrscope record -o "$WORK/s" -- dotnet "$(app NativeWork)" lib "$WORK/lib/libclrscopeburnstripped.so" 2

# the server, on a port free a moment ago; ready once it serves the file
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
debuginfod -F -p "$port" -d "$WORK/index.sqlite" -t 0 -g 0 "$WORK/served" >"$WORK/server.log" 2>&1 &
server=$!
CHILDREN+=("$server")
id=$(readelf -n "$stripped" | awk '/Build ID/ {print $3}')
ready=$(python3 - "$port" "$id" <<'EOF'
import sys, time, urllib.request
url = "http://127.0.0.1:%s/buildid/%s/debuginfo" % (sys.argv[1], sys.argv[2])
deadline = time.time() + 60
while time.time() < deadline:
    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            if r.status == 200:
                print("yes")
                break
    except Exception:
        time.sleep(0.5)
else:
    print("no")
EOF
)
expect_eq "$ready" "yes" "debuginfod serves the library's debug file by build id"

# named [VAR=VALUE...]: the hottest function and where the library's names came from
named() {
	env "$@" "$CLRSCOPE_BIN" report --format json "$WORK/s" >"$WORK/r.json"
	python3 - "$WORK/r.json" <<'EOF'
import json, sys
p = json.load(open(sys.argv[1]))["processes"][0]
f = max(p["functions"], key=lambda f: f["self"])
m = [m for m in p["native_modules"] if m["path"].endswith("/libclrscopeburnstripped.so")]
print(f["name"], m[0]["source"] if m else "none", (m[0]["debug_file"] or "none") if m else "none")
EOF
}
cache="$WORK/cache"
read -r fn source file <<<"$(named DEBUGINFOD_URLS="http://127.0.0.1:$port" DEBUGINFOD_CACHE_PATH="$cache")"
expect_eq "$fn" "libclrscopeburnstripped.so!burn_inner" "DEBUGINFOD_URLS set: named from the debug file the server sent"
expect_eq "$source" "debuginfod" "... and the report says it came from debuginfod"
[[ $file == "$cache"/* ]] && pass "... through libdebuginfod's cache ($file)" || fail "the debug file $file is not in the cache $cache"
text=$(DEBUGINFOD_URLS="http://127.0.0.1:$port" DEBUGINFOD_CACHE_PATH="$cache" clrscope report "$WORK/s")
expect_contains "$text" "libclrscopeburnstripped.so: symbols from debuginfod, $cache/" "the text report says so too"

kill "$server" 2>/dev/null
wait "$server" 2>/dev/null || true
read -r fn source _ <<<"$(named DEBUGINFOD_URLS="http://127.0.0.1:$port" DEBUGINFOD_CACHE_PATH="$cache")"
expect_eq "$fn $source" "libclrscopeburnstripped.so!burn_inner debuginfod" "the server gone, the cache still names it"
read -r fn source _ <<<"$(named DEBUGINFOD_CACHE_PATH="$cache")"
expect_eq "$fn $source" "libclrscopeburnstripped.so+0x$inner dynsym" "without DEBUGINFOD_URLS no server nor cache is asked"
finish
