// NativeWork sha SECONDS
// NativeWork lib PATH SECONDS [EXPORT [thread]]
//
// Busy in native code for SECONDS on the main thread (with "thread": on a
// thread it starts, and waits for).  "sha": hashes a
// 64 KiB buffer with SHA-256 over and over (OpenSSL's libcrypto does the
// work).  "lib": loads the library at PATH and calls its export EXPORT
// (clrscope_native_burn unless given) over and over (tests/tools/burnlib.c:
// clrscope_native_burn's time goes to its internal function burn_inner).
//
// stdout: "pid <N>", then "done <calls>" at the end.
using System.Globalization;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Security.Cryptography;

namespace Clrscope.TestApps;

internal static class Program
{
    [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
    private delegate ulong Burn(ulong rounds);

    private static int Main(string[] args)
    {
        string? path = null;
        string export = "clrscope_native_burn";
        bool onThread = false;
        double seconds;
        if (args.Length == 2 && args[0] == "sha" && TryParseSeconds(args[1], out seconds))
        {
        }
        else if (args.Length >= 3 && args.Length <= 5 && args[0] == "lib" && TryParseSeconds(args[2], out seconds) &&
                 (args.Length < 5 || args[4] == "thread"))
        {
            path = args[1];
            if (args.Length >= 4)
                export = args[3];
            onThread = args.Length == 5;
        }
        else
        {
            Console.Error.WriteLine("usage: NativeWork sha SECONDS | NativeWork lib PATH SECONDS [EXPORT [thread]]");
            return 2;
        }
        Console.Out.WriteLine("pid " + Environment.ProcessId.ToString(CultureInfo.InvariantCulture));
        Console.Out.Flush();
        long calls = 0;
        if (path == null)
            calls = HashFor(seconds);
        else if (!onThread)
            calls = BurnFor(path, export, seconds);
        else
        {
            var worker = new Thread(() => calls = BurnFor(path, export, seconds)) { Name = "Burner" };
            worker.Start();
            worker.Join();
        }
        Console.Out.WriteLine("done " + calls.ToString(CultureInfo.InvariantCulture));
        return 0;
    }

    private static bool TryParseSeconds(string s, out double seconds)
    {
        return double.TryParse(s, NumberStyles.Float, CultureInfo.InvariantCulture, out seconds) && seconds > 0;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static long HashFor(double seconds)
    {
        var data = new byte[64 << 10];
        new Random(42).NextBytes(data);
        var hash = new byte[32];
        long calls = 0;
        var until = DateTime.UtcNow.AddSeconds(seconds);
        while (DateTime.UtcNow < until)
        {
            SHA256.HashData(data, hash);
            calls++;
        }
        return calls;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static long BurnFor(string path, string export, double seconds)
    {
        IntPtr lib = NativeLibrary.Load(path);
        var burn = Marshal.GetDelegateForFunctionPointer<Burn>(NativeLibrary.GetExport(lib, export));
        long calls = 0;
        ulong sum = 0;
        var until = DateTime.UtcNow.AddSeconds(seconds);
        while (DateTime.UtcNow < until)
        {
            sum += burn(1 << 20);
            calls++;
        }
        GC.KeepAlive(sum);
        return calls;
    }
}
