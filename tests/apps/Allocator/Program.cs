// Allocator N
//
// Allocates N Clrscope.TestApps.Allocated objects, each kept alive only until the next
// one overwrites the static slot. Exits 0.
//
// stdout: "pid <N>", then "allocated <N>".
using System.Globalization;
using System.Runtime.CompilerServices;

namespace Clrscope.TestApps;

public sealed class Allocated
{
    public long A;
    public long B;
    public object? Next;

    public Allocated(long a)
    {
        A = a;
        B = a * 31;
    }
}

internal static class Program
{
    // Storing each object here makes it escape, so the JIT cannot stack-allocate it.
    private static Allocated? s_slot;

    private static int Main(string[] args)
    {
        if (args.Length != 1
            || !int.TryParse(args[0], NumberStyles.None, CultureInfo.InvariantCulture, out int n))
        {
            Console.Error.WriteLine("usage: Allocator N");
            return 2;
        }

        Say("pid " + Environment.ProcessId.ToString(CultureInfo.InvariantCulture));

        int count = AllocateMany(n);
        s_slot = null;

        Say("allocated " + count.ToString(CultureInfo.InvariantCulture));
        return 0;
    }

    private static void Say(string line)
    {
        Console.Out.WriteLine(line);
        Console.Out.Flush();
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static int AllocateMany(int n)
    {
        int count = 0;
        for (int i = 0; i < n; i++)
        {
            s_slot = new Allocated(i);
            count++;
        }
        return count;
    }
}
