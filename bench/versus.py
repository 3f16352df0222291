#!/usr/bin/env python3
"""Side by side: where clrscope and dotnet-trace say one program spent its time.

    versus.py [--within METHOD] CLRSCOPE_JSON CLRSCOPE_COLLAPSED DOTNET_TRACE_SPEEDSCOPE [TOP]

CLRSCOPE_JSON is `clrscope report --format json --pid PID` of the session (it
says which functions are managed), CLRSCOPE_COLLAPSED `clrscope report
--format collapsed --time wall --pid PID` (every thread's samples, waiting
ones too), DOTNET_TRACE_SPEEDSCOPE what `dotnet-trace collect --format
Speedscope` wrote for the same program (EventPipe's sampler: every managed
thread every millisecond).

Both are compared on what both can name: managed methods.  EventPipe shows
no native frames and marks a sample's leaf CPU_TIME or UNMANAGED_CODE_TIME;
clrscope names native frames and the runtime's work ([GC], [JIT
compilation]).  So every stack is cut down to its managed frames, and a
method's name loses what only one tool spells (dotnet-trace's module prefix,
parameter list and generic arguments).  For each method: the share of all
samples with it on the stack (inclusive) and as the innermost managed frame
(self).  Prints the TOP methods by the larger inclusive share of the two and,
per method, the difference in points.

With --within METHOD, only the samples with METHOD on the stack count, and
the shares are of its time: two runs of a program that each tool slows
down differently spend different shares of their wall time waiting (a
thread pool's idle workers), while the work under one method compares.
"""
import json
import sys
from collections import defaultdict

def without_brackets(text):
    """text without its [...] groups (nested ones too)."""
    out, depth = [], 0
    for c in text:
        if c == "[":
            depth += 1
        elif c == "]" and depth:
            depth -= 1
        elif not depth:
            out.append(c)
    return "".join(out)


def normal_name(name):
    """A method's name as both tools spell it: Namespace.Type.Method
    (dotnet-trace adds the module, the generic arguments of each type, the
    parameters)."""
    if "!" in name:
        name = name.split("!", 1)[1]
    paren = name.find("(")
    if paren > 0:
        name = name[:paren]
    return without_brackets(name)


class Shares:
    """Inclusive and self weight per method, and the total weight (of the
    stacks with `within` on them, when it is given)."""

    def __init__(self, within=None):
        self.inclusive = defaultdict(float)
        self.self = defaultdict(float)
        self.total = 0.0
        self.within = within

    def add(self, managed_stack, weight):
        """managed_stack: the managed frames, root first."""
        if self.within and self.within not in managed_stack:
            return
        self.total += weight
        if not managed_stack:
            return
        for name in set(managed_stack):
            self.inclusive[name] += weight
        self.self[managed_stack[-1]] += weight

    def inclusive_share(self, name):
        return 100.0 * self.inclusive.get(name, 0.0) / self.total if self.total else 0.0

    def self_share(self, name):
        return 100.0 * self.self.get(name, 0.0) / self.total if self.total else 0.0


def clrscope_shares(json_path, collapsed_path, within):
    report = json.load(open(json_path))
    managed = set()
    for process in report.get("processes", []):
        for f in process.get("functions", []):
            # an assembly's file, or a dynamic method's (its module may be
            # one made in memory, as expression trees' RefEmit_... is)
            if f.get("module", "").lower().endswith((".dll", ".exe")) or f["name"].startswith(
                    ("dynamicClass.", "ILStubClass.")):
                managed.add(f["name"])
    shares = Shares(within)
    for line in open(collapsed_path):
        line = line.rstrip("\n")
        if not line:
            continue
        stack, _, count = line.rpartition(" ")
        frames = [normal_name(f) for f in stack.split(";") if f in managed]
        shares.add(frames, float(count))
    return shares


def dotnet_trace_shares(path, within):
    doc = json.load(open(path))
    frames = doc["shared"]["frames"]
    # EventPipe's managed frames are "Module!Method(...)"; the rest are the
    # exporter's own (process, thread, CPU_TIME, UNMANAGED_CODE_TIME)
    managed = [normal_name(f["name"]) if "!" in f["name"] else None for f in frames]
    shares = Shares(within)
    for profile in doc["profiles"]:
        if profile.get("type") == "evented":
            stack, last = [], None
            for event in profile["events"]:
                at = float(event["at"])
                if last is not None and stack and at > last:
                    shares.add([managed[i] for i in stack if managed[i]], at - last)
                last = at
                if event["type"] == "O":
                    stack.append(event["frame"])
                elif stack:
                    stack.pop()
        elif profile.get("type") == "sampled":
            for sample, weight in zip(profile["samples"], profile["weights"]):
                shares.add([managed[i] for i in sample if managed[i]], float(weight))
    return shares


def main(argv):
    within = None
    if len(argv) > 2 and argv[1] == "--within":
        within = normal_name(argv[2])
        argv = argv[:1] + argv[3:]
    if len(argv) not in (4, 5):
        sys.stderr.write(__doc__.split("\n\n")[1] + "\n")
        return 2
    ours = clrscope_shares(argv[1], argv[2], within)
    theirs = dotnet_trace_shares(argv[3], within)
    top = int(argv[4]) if len(argv) == 5 else 25
    if not ours.total or not theirs.total:
        sys.stderr.write("versus: %s has no samples%s\n" % ("clrscope's session" if not ours.total else argv[3],
                                                          " under " + within if within else ""))
        return 1
    names = set(ours.inclusive) | set(theirs.inclusive)
    order = sorted(names, key=lambda n: -max(ours.inclusive_share(n), theirs.inclusive_share(n)))[:top]
    width = min(90, max(len(n) for n in order)) if order else 10
    print("%-*s  %21s  %21s  %12s" % (width, "method (managed frames only)", "inclusive % ours/theirs",
                                      "self % ours/theirs", "incl. diff"))
    worst = 0.0
    for name in order:
        a, b = ours.inclusive_share(name), theirs.inclusive_share(name)
        worst = max(worst, abs(a - b))
        shown = name if len(name) <= width else "..." + name[-(width - 3):]
        print("%-*s  %9.1f / %9.1f  %9.1f / %9.1f  %+11.1f" % (width, shown, a, b, ours.self_share(name),
                                                            theirs.self_share(name), a - b))
    print()
    print("samples: clrscope %.0f (wall, every thread), dotnet-trace %.0f ms of thread time%s; "
          "largest inclusive difference among these: %.1f points" %
          (ours.total, theirs.total, ", under " + within if within else "", worst))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
