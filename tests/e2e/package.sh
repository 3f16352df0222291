# cpack -G DEB in the build directory makes clrscope_VERSION_ARCH.deb: the
# program, the versioned agent, the man pages and the bash completion under
# /usr, and Depends computed by dpkg-shlibdeps from what they link.
source "$CLRSCOPE_TESTLIB"
build=$(cd "$(dirname "$CLRSCOPE_BIN")/.." && pwd)
for tool in cpack dpkg dpkg-deb; do
	command -v "$tool" >/dev/null || { fail "$tool is missing"; finish; }
done
if ! command -v dpkg-shlibdeps >/dev/null; then
	fail "dpkg-shlibdeps is missing: cpack -G DEB needs it for Depends (install dpkg-dev; scripts/deps.sh does)"
	finish
fi

version=$(clrscope --version | awk '{print $2}')
[[ $version =~ ^[0-9]+\.[0-9]+ ]] || fail "clrscope --version names no version: $(clrscope --version)"
arch=$(dpkg --print-architecture)
expect_status 0 "cpack -G DEB in the build directory" -- \
	bash -c 'cd "$1" && cpack -G DEB -B "$2"' cpack "$build" "$WORK/pkg"
deb="$WORK/pkg/clrscope_${version}_${arch}.deb"
if [[ ! -f "$deb" ]]; then
	fail "no $(basename "$deb"); cpack made: $(ls "$WORK/pkg"); output: $OUT $ERR"
	finish
fi
pass "cpack made $(basename "$deb")"

field() { dpkg-deb -f "$deb" "$1"; }
[[ "$(field Package)" == clrscope ]] && pass "Package: clrscope" || fail "Package: $(field Package)"
[[ "$(field Version)" == "$version" ]] && pass "Version: $version" || fail "Version: $(field Version), wanted $version"
[[ "$(field Architecture)" == "$arch" ]] && pass "Architecture: $arch" || fail "Architecture: $(field Architecture)"
[[ "$(field Section)" == devel ]] && pass "Section: devel" || fail "Section: $(field Section)"
expect_contains "$(field Maintainer)" "clrscope developers" "Maintainer: clrscope developers"
expect_contains "$(field Description)" ".NET runtime" "the description says the .NET runtime is needed"
depends=$(field Depends)
for lib in libc6 libncursesw libreadline libinotifytools; do
	expect_contains "$depends" "$lib" "Depends names $lib"
done

paths=$(dpkg-deb -c "$deb" | awk '{print $6}')
agent=$(basename "$CLRSCOPE_AGENT_LIB")
man1=$(cd "$(dirname "$CLRSCOPE_TESTLIB")/../../man" && ls *.1) # clrscope.1 and each command's page
for f in ./usr/bin/clrscope "./usr/lib/clrscope/$agent" $(printf './usr/share/man/man1/%s ' $man1) \
	./usr/share/man/man5/clrscope-session.5 ./usr/share/bash-completion/completions/clrscope; do
	grep -qxF "$f" <<<"$paths" && pass "the package has $f" || fail "the package lacks $f; it has: $(tr '\n' ' ' <<<"$paths")"
done
outside=$(grep -v '^\./usr/' <<<"$paths" | grep -vx '\./' || true)
[[ -z "$outside" ]] && pass "everything is under /usr" || fail "files outside /usr: $outside"

# the unpacked tree works: clrscope runs and the completion is the source's
dpkg-deb -x "$deb" "$WORK/root"
expect_status 0 "the packaged clrscope runs" -- "$WORK/root/usr/bin/clrscope" --version
expect_contains "$OUT" "$version" "the packaged clrscope is version $version"
src=$(cd "$(dirname "$CLRSCOPE_TESTLIB")/../.." && pwd)
cmp -s "$src/scripts/completion/clrscope.bash" "$WORK/root/usr/share/bash-completion/completions/clrscope" &&
	pass "the packaged completion is scripts/completion/clrscope.bash" || fail "the packaged completion differs from the source's"
finish
