#!/usr/bin/env bash
# Side by side with dotnet-trace on the C# compiler: a program nobody here
# wrote, busy on every CPU with many threads (Roslyn binds and emits types
# in parallel on the thread pool) and compiling thousands of its own
# methods as it goes.  Writes a C# file of CLASSES generated types (records,
# LINQ, lambdas, async methods, pattern matching), then runs the SDK's own
# csc.dll on it under both tools with bench/versus.sh: the shares of the
# wall time, then of the time under MethodCompiler.CompileNamedType (the
# compiler's parallel work, which each tool's run spends a different share
# of its wall time in).
#
#   bench/versus_csc.sh [-c CLASSES] [-n TOP] [-b BUILD_DIR]
#
# CLASSES: default 600 (5,400 lines: about 17 s on two CPUs).
#
# Not a test: nothing is asserted.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

classes=600
top=30
build_dir=
bench_opt() {
	case $1 in
	c) bench_uint classes -c "$2" ;;
	n) bench_uint top -n "$2" ;;
	b) build_dir=$2 ;;
	esac
}
bench_options "c:n:b:" "" "$@"
set -- "${bench_args[@]}"
(($# == 0)) || bench_usage_error "takes no operands, not: $*"
bench_workdir versus-csc

sdk=$(dotnet --version)
root=${DOTNET_ROOT:-$(dirname "$(readlink -f "$(command -v dotnet)")")}
csc=$root/sdk/$sdk/Roslyn/bincore/csc.dll
[[ -f $csc ]] || { echo "no csc.dll at $csc: is the .NET SDK installed?" >&2; exit 1; }
refs=$(ls -d "$root"/packs/Microsoft.NETCore.App.Ref/*/ref/net*/ 2>/dev/null | sort -V | tail -1)
[[ -n $refs ]] || { echo "no reference assemblies under $root/packs/Microsoft.NETCore.App.Ref" >&2; exit 1; }

python3 - "$classes" >"$work/Gen.cs" <<'EOF'
import sys
n = int(sys.argv[1])
print("using System; using System.Collections.Generic; using System.Linq; using System.Threading.Tasks;")
print("namespace Gen {")
for i in range(n):
    print(f"""public record Item{i}(int Id, string Name, double Weight);
public static class Ops{i} {{
    public static IEnumerable<Item{i}> Make(int n) => Enumerable.Range(0, n).Select(k => new Item{i}(k, "n" + k, k * {i + 1}.5));
    public static double Total(IEnumerable<Item{i}> xs) => xs.Where(x => x.Id % {i % 7 + 2} == 0).Sum(x => x.Weight);
    public static Dictionary<string, List<Item{i}>> Group(IEnumerable<Item{i}> xs) => xs.GroupBy(x => x.Name.Substring(0, 1)).ToDictionary(g => g.Key, g => g.ToList());
    public static async Task<int> CountAsync(IEnumerable<Item{i}> xs) {{ await Task.Yield(); int c = 0; foreach (var x in xs) {{ if (x.Weight > {i}) c++; }} return c; }}
    public static T Pick<T>(IList<T> xs, Func<T, bool> p) where T : class {{ foreach (var x in xs) if (p(x)) return x; return xs.Count > 0 ? xs[0] : null!; }}
    public static string Describe(Item{i} x) => x switch {{ {{ Id: 0 }} => "zero", {{ Weight: > 100 }} => $"heavy {{x.Name}}", _ => x.ToString() }};
}}""")
print("}")
EOF
{
	echo "-nologo -target:library -nullable:enable -out:$work/Gen.dll"
	for f in "$refs"*.dll; do echo "-r:$f"; done
	echo "$work/Gen.cs"
} >"$work/csc.rsp"

echo "csc.dll of SDK $sdk on $classes generated types ($(wc -l <"$work/Gen.cs") lines)" >&2
"$(dirname "$0")/versus.sh" -n "$top" -i Microsoft.CodeAnalysis.CSharp.MethodCompiler.CompileNamedType \
	${build_dir:+-b "$build_dir"} -- dotnet exec "$csc" "@$work/csc.rsp"
