#!/usr/bin/env python3
"""The include graph of the sources, and the agent's calls between modules.

layers.py SRC [OBJECTS...]: prints one line per breach and exits 1 if any.

  - no include circle: a module is a .c and its .h (agent/log/logwriter);
    the modules of agent/, common/ and tui/ and their "..." includes are a
    graph, and each strongly connected component of more than one module is
    a circle
  - no arrow against the agent's layers (the table in $AGENT_LAYERS: lines of
    "FOLDER RANK ..."): a file of agent/ includes files of its own folder and
    of folders of lower rank only, and every folder of agent/ is in the table
  - with OBJECTS (directories of the agent libraries' object files, one
    graph each), the same two rules for the calls between the agent's
    modules: what each object file takes from another (nm), so that a
    function declared in one module's header and defined in another's
    source is seen as the call it is
"""
import collections
import os
import re
import subprocess
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def layer_table():
    ranks = {}
    for line in os.environ.get("AGENT_LAYERS", "").splitlines():
        fields = line.split()
        if len(fields) >= 2:
            ranks[fields[0]] = int(fields[1])
    return ranks


def module_of(path):
    return os.path.splitext(path)[0]


def resolve(src, name):
    """An include's file from the source root, or else from tui/ (clrscope's
    own includes name their folder under tui/); None when neither has it."""
    for path in (name, os.path.join("tui", name)):
        if os.path.isfile(os.path.join(src, path)):
            return path
    return None


def include_graph(src):
    """{module: {included module: [(file, line), ...]}} of agent/, common/, tui/."""
    graph = collections.defaultdict(lambda: collections.defaultdict(list))
    for top in ("agent", "common", "tui"):
        for folder, _, files in os.walk(os.path.join(src, top)):
            for name in sorted(files):
                if not name.endswith((".c", ".h")):
                    continue
                path = os.path.relpath(os.path.join(folder, name), src)
                graph[module_of(path)]
                with open(os.path.join(src, path), errors="replace") as f:
                    for number, line in enumerate(f, 1):
                        m = INCLUDE.match(line)
                        target = m and resolve(src, m.group(1))
                        if target and module_of(target) != module_of(path):
                            graph[module_of(path)][module_of(target)].append((path, number))
    return graph


def call_graph(src, objects):
    """{module: {called module: [symbol, ...]}} from the agent's object files
    (those of sources that still exist: a build tree keeps objects of moved
    files)."""
    defined, undefined = {}, collections.defaultdict(set)
    for folder, _, files in os.walk(objects):
        for name in files:
            if not name.endswith(".c.o"):
                continue
            path = os.path.join(folder, name)
            module = "agent/" + module_of(module_of(os.path.relpath(path, objects)))
            if not os.path.isfile(os.path.join(src, module + ".c")):
                continue
            out = subprocess.run(["nm", path], capture_output=True, text=True, check=True).stdout
            for line in out.splitlines():
                fields = line.split()
                if len(fields) == 3 and fields[1] in "TDBRC":
                    defined[fields[2]] = module
                elif len(fields) == 2 and fields[0] == "U":
                    undefined[module].add(fields[1])
    graph = collections.defaultdict(lambda: collections.defaultdict(list))
    for module, symbols in undefined.items():
        graph[module]
        for symbol in sorted(symbols):
            if symbol in defined and defined[symbol] != module:
                graph[module][defined[symbol]].append(symbol)
    return graph


def circles(graph):
    """The strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in graph:
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def against_layers(graph, ranks, what):
    """Arrows between agent folders that do not go down the table."""
    breaches = []
    for module in sorted(graph):
        if not module.startswith("agent/"):
            continue
        here = os.path.dirname(module)
        if here not in ranks:
            breaches.append(f"{module}: its folder {here} is not in the layer table")
            continue
        for target, where in sorted(graph[module].items()):
            there = os.path.dirname(target)
            if not target.startswith("agent/") or there == here:
                continue
            if there not in ranks:
                breaches.append(f"{module} {what} {target}, whose folder is not in the layer table")
            elif ranks[there] >= ranks[here]:
                first = where[0] if isinstance(where[0], str) else "%s:%d" % where[0]
                breaches.append(f"{module} (rank {ranks[here]}) {what} {target} (rank {ranks[there]}), "
                                f"against the layers: {first}")
    return breaches


def main():
    src = sys.argv[1]
    ranks = layer_table()
    if not ranks:
        print("no layer table in AGENT_LAYERS")
        return 1
    breaches = []
    includes = include_graph(src)
    breaches += ["include circle: " + " ".join(c) for c in sorted(circles(includes))]
    breaches += against_layers(includes, ranks, "includes")
    for objects in sys.argv[2:]:
        calls = call_graph(src, objects)
        if not calls:
            breaches.append(f"no object files of the agent under {objects}")
        breaches += ["call circle: " + " ".join(c) for c in circles(calls)]
        breaches += against_layers(calls, ranks, "calls")
    for b in breaches:
        print(b)
    return 1 if breaches else 0


if __name__ == "__main__":
    sys.exit(main())
