// Spawner PATH_TO_CHILD_DLL
//
// Starts "dotnet PATH_TO_CHILD_DLL 1" as a child (environment and stdio inherited, so
// the child's own lines appear on the same stdout), waits for it, prints its exit code
// and exits 0. The dotnet host is Environment.ProcessPath when that is the dotnet
// muxer (i.e. this program was started as "dotnet Spawner.dll"), else "dotnet" from PATH.
//
// stdout: "pid <N>", [the child's lines], "child exited <code>".
using System.Diagnostics;
using System.Globalization;
using System.Runtime.CompilerServices;

namespace Clrscope.TestApps;

internal static class Program
{
    private static int Main(string[] args)
    {
        if (args.Length != 1 || args[0].Length == 0)
        {
            Console.Error.WriteLine("usage: Spawner PATH_TO_CHILD_DLL");
            return 2;
        }

        Say("pid " + Environment.ProcessId.ToString(CultureInfo.InvariantCulture));

        int code = RunChild(args[0]);

        Say("child exited " + code.ToString(CultureInfo.InvariantCulture));
        return 0;
    }

    private static void Say(string line)
    {
        Console.Out.WriteLine(line);
        Console.Out.Flush();
    }

    private static string DotnetHost()
    {
        string? self = Environment.ProcessPath;
        if (self is not null
            && string.Equals(Path.GetFileNameWithoutExtension(self), "dotnet", StringComparison.Ordinal))
        {
            return self;
        }
        return "dotnet";
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static int RunChild(string childDll)
    {
        var psi = new ProcessStartInfo(DotnetHost())
        {
            UseShellExecute = false,
            RedirectStandardInput = false,
            RedirectStandardOutput = false,
            RedirectStandardError = false,
        };
        psi.ArgumentList.Add(childDll);
        psi.ArgumentList.Add("1");

        using Process child = Process.Start(psi)
            ?? throw new InvalidOperationException("could not start child process");
        child.WaitForExit();
        return child.ExitCode;
    }
}
