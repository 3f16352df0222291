// Shapes SHAPE SECONDS
//
// Keeps the main thread busy for SECONDS of wall time in one stack shape whose
// frames are known, so that a profiler's stacks can be checked frame by frame.
// Every shape starts in a driver loop called once (Main -> Shape.Run), which the
// runtime turns into on-stack-replacement code; below it:
//   osr        Run -> Step -> Spin            (Step is frameless at tier 1)
//   frameless  Run -> Mix                     (Mix: a tiny leaf without a frame)
//   funclet    Run -> Catcher -> Spin, from inside a catch block
//   recursion  Run -> Recurse x300 -> Spin
//   generic    Run -> Box<Item>.Apply<long> -> lambda -> Spin
//   pinvoke    Run -> libc qsort -> Compare (a managed callback) -> Spin
//   beyondcopy Run -> a native frame of 16 KiB -> Enter (a managed callback)
//              -> Level x40 (half a KiB each) -> Spin: a copy of 32 KiB from
//              the leaf ends inside the native frame (Shapes beyondcopy
//              SECONDS LIBRARY: tests/tools/calllib.c, built as
//              libclrscopecall.so)
//   dynamic    Run -> Spin64 -> Spin  (Spin64: a DynamicMethod emitted at run
//              time, as compiled expressions and regexes are)
//   dynamics   RunMany -> StepN -> SpinEven or SpinOdd: a new dynamic method
//              every 10 ms (StepN calls SpinEven when N is even), the old
//              ones collected, so the runtime reuses their ids and code
//   collectibles RunMany -> CollectN.Step -> Callees.SpinEven or SpinOdd: as dynamics,
//              but each method in a collectible assembly of its own
//              (AssemblyBuilder, RunAndCollect): unloaded when collected, its
//              code freed and its addresses reused
//   manymethods Many.Run -> ChainK.M0 -> ChainK.M1 ... -> ChainK.M39 -> Callees.Leaf -> Spin:
//              400 types ChainK made at run time (AssemblyBuilder, not
//              collectible), their 16,000 methods each called in turn for 5 ms,
//              more compiled bodies than a profiler's code map keeps at once
// Spin is a busy loop: nearly all samples land there (or in Mix).
//
// stdout: "tid <OS thread id>", then "done <rounds>".
using System.Diagnostics;
using System.Globalization;
using System.Reflection;
using System.Reflection.Emit;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace Clrscope.TestApps;

internal static unsafe class Program
{
    public static double Sink;

    private static int Main(string[] args)
    {
        if ((args.Length != 2 && !(args.Length == 3 && args[0] == "beyondcopy"))
            || !double.TryParse(args[1], NumberStyles.Float, CultureInfo.InvariantCulture, out double seconds))
        {
            Console.Error.WriteLine("usage: Shapes osr|frameless|funclet|recursion|generic|pinvoke|dynamic|dynamics|collectibles|manymethods SECONDS");
            Console.Error.WriteLine("       Shapes beyondcopy SECONDS LIBRARY");
            return 2;
        }
        Console.Out.WriteLine("tid " + gettid().ToString(CultureInfo.InvariantCulture));
        Console.Out.Flush();
        long deadline = Stopwatch.GetTimestamp() + (long)(seconds * Stopwatch.Frequency);
        long rounds = args[0] switch
        {
            "osr" => Osr.Run(deadline),
            "frameless" => Frameless.Run(deadline),
            "funclet" => Funclet.Run(deadline),
            "recursion" => Recursion.Run(deadline),
            "generic" => Generic.Run(deadline),
            "pinvoke" => PInvoke.Run(deadline),
            "beyondcopy" => BeyondCopy.Run(deadline, args[2]),
            "dynamic" => Dynamic.Run(deadline),
            "dynamics" => RunMany(deadline, Dynamic.MakeStep, finalize: false),
            "collectibles" => RunMany(deadline, Collectible.MakeStep, finalize: true),
            "manymethods" => Many.Run(deadline),
            _ => -1,
        };
        if (rounds < 0)
        {
            Console.Error.WriteLine("unknown shape " + args[0]);
            return 2;
        }
        Console.Out.WriteLine("done " + rounds.ToString(CultureInfo.InvariantCulture));
        return 0;
    }

    [DllImport("libc", EntryPoint = "gettid")]
    private static extern int gettid();

    // About 50 microseconds of arithmetic with no call in it.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Spin()
    {
        uint x = 2463534242u;
        double d = Sink;
        for (int i = 0; i < 10000; i++)
        {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            d = d * 0.999999 + (x & 0xFF) * 1e-3;
        }
        Sink = d + x;
    }

    internal static class Osr
    {
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long Run(long deadline)
        {
            long rounds = 0;
            do
            {
                for (int k = 0; k < 64; k++)
                    Step();
                rounds += 64;
            }
            while (Stopwatch.GetTimestamp() < deadline);
            return rounds;
        }

        // One call, no loop: the JIT gives it no frame pointer at tier 1.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static void Step() => Spin();
    }

    internal static class Frameless
    {
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long Run(long deadline)
        {
            long rounds = 0;
            uint x = 1;
            do
            {
                for (int k = 0; k < 100000; k++)
                    x = Mix(x);
                rounds++;
            }
            while (Stopwatch.GetTimestamp() < deadline);
            Sink = x;
            return rounds;
        }

        // A leaf with no loop and no call: no frame at all.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static uint Mix(uint x)
        {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x = x * 2654435761u + 0x9E3779B9u;
            x ^= x >> 15;
            return x * 2246822519u;
        }
    }

    internal static class Funclet
    {
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long Run(long deadline)
        {
            long rounds = 0;
            do
            {
                rounds += Catcher();
            }
            while (Stopwatch.GetTimestamp() < deadline);
            return rounds;
        }

        // The work is done inside the catch block: a funclet of Catcher.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long Catcher()
        {
            try
            {
                throw new InvalidOperationException("shape");
            }
            catch (InvalidOperationException)
            {
                for (int k = 0; k < 2000; k++)
                    Spin();
                return 2000;
            }
        }
    }

    internal static class Recursion
    {
        public const int Depth = 300;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long Run(long deadline)
        {
            long rounds = 0;
            do
            {
                rounds += Recurse(Depth);
            }
            while (Stopwatch.GetTimestamp() < deadline);
            return rounds;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long Recurse(int depth)
        {
            if (depth > 1)
                return Recurse(depth - 1) + 1;
            for (int k = 0; k < 200; k++)
                Spin();
            return 1;
        }
    }

    internal struct Item
    {
        public long Value;
    }

    internal sealed class Box<T>
    {
        public T? Content;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public long Apply<TResult>(Func<T?, TResult> f, int times)
        {
            long n = 0;
            for (int k = 0; k < times; k++)
            {
                f(Content);
                n++;
            }
            return n;
        }
    }

    internal static class Generic
    {
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long Run(long deadline)
        {
            var box = new Box<Item> { Content = new Item { Value = 7 } };
            Func<Item, long> work = item =>
            {
                Spin();
                return item.Value;
            };
            long rounds = 0;
            do
            {
                rounds += box.Apply(work, 64);
            }
            while (Stopwatch.GetTimestamp() < deadline);
            return rounds;
        }
    }

    internal static class PInvoke
    {
        [DllImport("libc", EntryPoint = "qsort")]
        private static extern void qsort(int* items, nint count, nint size, delegate* unmanaged<int*, int*, int> compare);

        [UnmanagedCallersOnly]
        private static int Compare(int* a, int* b)
        {
            Spin();
            return *a < *b ? -1 : *a > *b ? 1 : 0;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long Run(long deadline)
        {
            int* items = stackalloc int[16];
            long rounds = 0;
            do
            {
                for (int i = 0; i < 16; i++)
                    items[i] = (i * 7919) % 16;
                qsort(items, 16, sizeof(int), &Compare);
                rounds++;
            }
            while (Stopwatch.GetTimestamp() < deadline);
            return rounds;
        }
    }

    internal static class BeyondCopy
    {
        public const int Levels = 40;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long Run(long deadline, string library)
        {
            var call = (delegate* unmanaged<delegate* unmanaged<long, long>, long, long>)
                NativeLibrary.GetExport(NativeLibrary.Load(library), "clrscope_call_from_big_frame");
            long rounds = 0;
            do
            {
                rounds += call(&Enter, rounds) & 1;
            }
            while (Stopwatch.GetTimestamp() < deadline);
            return rounds;
        }

        [UnmanagedCallersOnly]
        private static long Enter(long arg) => Level(Levels, arg);

        // Half a KiB of stack per level (stackalloc also keeps the JIT from
        // turning the call into a jump).
        [MethodImpl(MethodImplOptions.NoInlining)]
        private static long Level(int depth, long arg)
        {
            byte* room = stackalloc byte[448];
            room[depth] = (byte)arg;
            long r = 1;
            if (depth > 1)
                r = Level(depth - 1, arg);
            else
                for (int k = 0; k < 20; k++)
                    Spin();
            return r + room[depth];
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void SpinEven() => Spin();

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void SpinOdd() => Spin();

    internal static class Dynamic
    {
        // A method body that calls callee 64 times and returns.
        internal static void EmitCalls64(ILGenerator il, MethodInfo callee)
        {
            LocalBuilder k = il.DeclareLocal(typeof(int));
            Label top = il.DefineLabel(), test = il.DefineLabel();
            il.Emit(OpCodes.Ldc_I4_0);
            il.Emit(OpCodes.Stloc, k);
            il.Emit(OpCodes.Br, test);
            il.MarkLabel(top);
            il.Emit(OpCodes.Call, callee);
            il.Emit(OpCodes.Ldloc, k);
            il.Emit(OpCodes.Ldc_I4_1);
            il.Emit(OpCodes.Add);
            il.Emit(OpCodes.Stloc, k);
            il.MarkLabel(test);
            il.Emit(OpCodes.Ldloc, k);
            il.Emit(OpCodes.Ldc_I4, 64);
            il.Emit(OpCodes.Blt, top);
            il.Emit(OpCodes.Ret);
        }

        // A method with no metadata, made of IL at run time: it calls a
        // method 64 times and returns.
        private static Action MakeSpin64(string name = "Spin64", string callee = nameof(Spin))
        {
            var method = new DynamicMethod(name, null, Type.EmptyTypes, typeof(Program).Module);
            EmitCalls64(method.GetILGenerator(), typeof(Program).GetMethod(callee)!);
            return method.CreateDelegate<Action>();
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long Run(long deadline)
        {
            Action spin64 = MakeSpin64();
            long rounds = 0;
            do
            {
                spin64();
                rounds += 64;
            }
            while (Stopwatch.GetTimestamp() < deadline);
            return rounds;
        }

        // StepN, which calls SpinEven when N is even, SpinOdd when it is odd.
        public static Action MakeStep(int n) =>
            MakeSpin64("Step" + n.ToString(CultureInfo.InvariantCulture), n % 2 == 0 ? nameof(SpinEven) : nameof(SpinOdd));
    }

    internal static class Collectible
    {
        // Type CollectN in an assembly of its own that the GC may unload,
        // whose static Step calls Callees.SpinEven when N is even, SpinOdd
        // when it is odd, 64 times.
        public static Action MakeStep(int n)
        {
            string name = "Collect" + n.ToString(CultureInfo.InvariantCulture);
            AssemblyBuilder asm = AssemblyBuilder.DefineDynamicAssembly(new AssemblyName(name), AssemblyBuilderAccess.RunAndCollect);
            TypeBuilder type = asm.DefineDynamicModule(name).DefineType(name, TypeAttributes.Public | TypeAttributes.Abstract | TypeAttributes.Sealed);
            MethodBuilder step = type.DefineMethod("Step", MethodAttributes.Public | MethodAttributes.Static, null, Type.EmptyTypes);
            string callee = n % 2 == 0 ? nameof(Callees.SpinEven) : nameof(Callees.SpinOdd);
            Dynamic.EmitCalls64(step.GetILGenerator(), typeof(Callees).GetMethod(callee)!);
            return type.CreateType().GetMethod("Step")!.CreateDelegate<Action>();
        }
    }

    internal static class Many
    {
        private const int Chains = 400, Depth = 40;

        // Type ChainK whose static M0 calls M1 ... M39, which calls
        // Callees.Leaf: forty methods with metadata, each compiled on its
        // first call, each adding 1 to what its callee returns (no call in
        // tail position, which optimized code would make a jump).
        private static Func<int> MakeChain(ModuleBuilder module, int k)
        {
            TypeBuilder type = module.DefineType("Chain" + k.ToString(CultureInfo.InvariantCulture),
                TypeAttributes.Public | TypeAttributes.Abstract | TypeAttributes.Sealed);
            var methods = new MethodBuilder[Depth];
            for (int i = 0; i < Depth; i++)
            {
                methods[i] = type.DefineMethod("M" + i.ToString(CultureInfo.InvariantCulture),
                    MethodAttributes.Public | MethodAttributes.Static, typeof(int), Type.EmptyTypes);
                methods[i].SetImplementationFlags(MethodImplAttributes.NoInlining);
            }
            for (int i = 0; i < Depth; i++)
            {
                ILGenerator il = methods[i].GetILGenerator();
                il.Emit(OpCodes.Call, i + 1 < Depth ? methods[i + 1] : typeof(Callees).GetMethod(nameof(Callees.Leaf))!);
                il.Emit(OpCodes.Ldc_I4_1);
                il.Emit(OpCodes.Add);
                il.Emit(OpCodes.Ret);
            }
            return type.CreateType().GetMethod("M0")!.CreateDelegate<Func<int>>();
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long Run(long deadline)
        {
            AssemblyBuilder asm = AssemblyBuilder.DefineDynamicAssembly(new AssemblyName("Chains"), AssemblyBuilderAccess.Run);
            ModuleBuilder module = asm.DefineDynamicModule("Chains");
            var chains = new Func<int>[Chains];
            for (int k = 0; k < Chains; k++)
                chains[k] = MakeChain(module, k);
            long rounds = 0;
            for (int k = 0; Stopwatch.GetTimestamp() < deadline; k = (k + 1) % Chains)
            {
                long until = Math.Min(deadline, Stopwatch.GetTimestamp() + Stopwatch.Frequency / 200);
                do
                {
                    rounds += chains[k]() - Depth;
                }
                while (Stopwatch.GetTimestamp() < until);
            }
            return rounds;
        }
    }

    // The driver of the dynamics and collectibles shapes: a new step
    // (make(n)) every 10 ms, the dropped ones collected every fourth (and,
    // for collectible assemblies, finalized: that unloads them).
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static long RunMany(long deadline, Func<int, Action> make, bool finalize)
    {
        long rounds = 0;
        for (int n = 0; Stopwatch.GetTimestamp() < deadline; n++)
        {
            Action step = make(n);
            long until = Math.Min(deadline, Stopwatch.GetTimestamp() + Stopwatch.Frequency / 100);
            do
            {
                step();
                rounds += 64;
            }
            while (Stopwatch.GetTimestamp() < until);
            if (n % 4 == 3)
            {
                GC.Collect(); // the dropped ones go, and their ids and code are free again
                if (finalize)
                    GC.WaitForPendingFinalizers();
            }
        }
        return rounds;
    }
}

// What another assembly's code may call: Program is internal.
public static class Callees
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void SpinEven() => Program.Spin();

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void SpinOdd() => Program.Spin();

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Leaf()
    {
        Program.Spin();
        return 1;
    }
}
