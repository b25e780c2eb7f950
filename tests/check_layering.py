#!/usr/bin/python3
"""The include graph follows the pipeline, observe -> account -> decide ->
act -> report: a file may include the headers of its own stage and of the
stages before it, never of a later one. common and config come before every
stage; control, taoctl and the pipeline (daemon/*.c) may include anything.

A header lives beside the code that owns it (daemon/<stage>/x.h, included as
"x.h" from its folder and "<stage>/x.h" from others), so its folder is its
stage. include/taod/ holds only the contracts that cross a boundary; each
names its ends in a "Contract: a -> b" line, and ranks as the earliest
stage it names. A header is one folder's public face: every function it
declares is defined in that folder. Inside a folder, calls between files
do not go round (a.c -> b.c -> a.c): such files are one unit split in two,
or share a piece that belongs in a third file. A stage's rooms
(daemon/act/gate/, ...) are part of it, and the same holds across them:
calls between the files of a stage do not go round either, counting a
call to an inline function of a header x.h as one to x.c. A function is declared in the header of the file that defines
it, never as a prototype inside another .c file.

Usage: check_layering.py [REPO]   (prints the back edges, exit 1 if any)
"""
import re
import sys
from pathlib import Path

RANK = {"common": 0, "config": 1, "observe": 2, "account": 3, "decide": 4, "act": 5,
        "report": 6, "control": 7, "taoctl": 7, "pipeline": 7}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([A-Za-z0-9_/]+\.h)"', re.M)
CONTRACT = re.compile(r"Contract:([^\n.]*)")


def stage_of(repo, f):
    """Stage of a file under daemon/, or None elsewhere."""
    rel = f.relative_to(repo)
    if rel.parts[0] != "daemon":
        return None
    return "pipeline" if len(rel.parts) == 2 else rel.parts[1]


def contract_stage(header):
    """The earliest stage a contract header's "Contract:" line names."""
    m = CONTRACT.search(header.read_text(errors="replace")) if header.exists() else None
    named = [w for w in re.findall(r"[a-z]+", m.group(1))] if m else []
    ranked = sorted((RANK[w], w) for w in named if w in RANK)
    return ranked[0][1] if ranked else None


def header_stage(repo, f, inc):
    """(resolved header, its stage) for #include "inc" in file @f."""
    if inc.startswith("taod/"):
        h = repo / "include" / inc
        return h, contract_stage(h)
    for h in (f.parent / inc, repo / "daemon" / inc):
        if h.exists():
            return h, stage_of(repo, h)
    return None, None


def back_edges(repo):
    """(file, its stage, included header, the header's stage) for every
    include of a later stage's header, and for every header of no stage."""
    repo = Path(repo)
    files = sorted(list(repo.glob("daemon/**/*.[ch]")) + list(repo.glob("include/taod/*.h")))
    bad = []
    for f in files:
        rel = str(f.relative_to(repo))
        stage = stage_of(repo, f) or contract_stage(f)
        if stage not in RANK:
            bad.append((rel, stage, None, 'no stage: a contract needs a "Contract:" line'))
            continue
        for inc in INCLUDE.findall(f.read_text(errors="replace")):
            h, to = header_stage(repo, f, inc)
            if h is None:
                continue  # generated (build/) or a system header
            if to not in RANK:
                bad.append((rel, stage, inc, 'no stage: a contract needs a "Contract:" line'))
            elif RANK[to] > RANK[stage]:
                bad.append((rel, stage, inc, to))
    return bad


# A prototype at file scope, and a function definition that is not static.
DECLARATION = re.compile(r"^(?!static|typedef|extern|struct \w+ \{)[A-Za-z][\w *]*?"
                         r"\b([a-z_][a-z0-9_]*)\s*\([^;{}]*\)[^;{}]*;", re.M)
DEFINITION = re.compile(r"^(?!static)[A-Za-z][\w *]*?\b([a-z_][a-z0-9_]*)\s*\([^;{}]*\)\s*\{",
                        re.M)


def misplaced_functions(repo):
    """(header, its stage, function, the stages defining it) for every
    function a header beside the code declares but its folder does not define."""
    repo = Path(repo)
    defined = {}
    for c in repo.glob("daemon/**/*.c"):
        for name in DEFINITION.findall(c.read_text(errors="replace")):
            defined.setdefault(name, set()).add(stage_of(repo, c))
    bad = []
    for h in sorted(repo.glob("daemon/**/*.h")):
        for name in DECLARATION.findall(h.read_text(errors="replace")):
            where = defined.get(name, set())
            if where != {stage_of(repo, h)}:
                bad.append((str(h.relative_to(repo / "daemon")), stage_of(repo, h), name,
                            sorted(where)))
    return bad


CALL = re.compile(r"\b([a-z_][a-z0-9_]*)\s*\(")
COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)


def folder_calls(repo):
    """{folder: {file: set of files of the folder whose functions it calls}}."""
    repo = Path(repo)
    graph = {}
    for folder in sorted({c.parent for c in repo.glob("daemon/**/*.c")}):
        files = sorted(folder.glob("*.c"))
        owner = {}
        for c in files:
            for name in DEFINITION.findall(c.read_text(errors="replace")):
                owner[name] = c.name
        graph[folder.name] = {
            c.name: {owner[n] for n in CALL.findall(COMMENT.sub("", c.read_text(errors="replace")))
                     if n in owner and owner[n] != c.name}
            for c in files}
    return graph


def strongly_connected(edges):
    """The groups of more than one node that reach each other in @edges
    ({node: set of nodes}), each sorted, in the order found."""
    index, low, stack, on, n, groups = {}, {}, [], set(), [0], []

    def visit(v):
        index[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return groups


# A function a header defines (static inline), and its body up to the
# closing brace at the start of a line.
INLINE = re.compile(r"^static\s+inline\b[\w *]*?\b([a-z_][a-z0-9_]*)\s*\([^;{}]*\)\s*\{(.*?)^\}",
                    re.M | re.S)


def stage_files(repo):
    """{stage: [files of daemon/<stage>/, its rooms included]}; the
    pipeline's (daemon/*.[ch]) as "pipeline"."""
    repo = Path(repo)
    out = {}
    for f in sorted(repo.glob("daemon/**/*.[ch]")):
        out.setdefault(stage_of(repo, f), []).append(f)
    return out


def unit_of(f):
    """The file a header is the face of: x.h -> x.c beside it, else itself."""
    if f.suffix == ".h":
        c = f.with_suffix(".c")
        return c if c.exists() else f
    return f


def stage_cycles(repo):
    """(stage, files) for each group of a stage's files, its rooms'
    included, whose calls go round: an inline function of a header x.h is
    x.c's (or the header's own, with no x.c), so a call to it ties too."""
    repo = Path(repo)
    found = []
    for stage, files in stage_files(repo).items():
        base = repo / "daemon" if stage == "pipeline" else repo / "daemon" / stage
        owner = {}
        for f in files:
            text = f.read_text(errors="replace")
            if f.suffix == ".c":
                for name in DEFINITION.findall(text):
                    owner[name] = f
            else:
                for name, _ in INLINE.findall(text):
                    owner[name] = unit_of(f)
        edges = {}
        for f in files:
            text = COMMENT.sub("", f.read_text(errors="replace"))
            u = unit_of(f)
            to = edges.setdefault(u, set())
            if f.suffix == ".h":  # only what its inline functions call
                text = "".join(body for _, body in INLINE.findall(text))
            for name in CALL.findall(text):
                if name in owner:
                    to.add(owner[name])
            to.discard(u)
        for group in strongly_connected(edges):
            found.append((stage, [str(g.relative_to(base)) for g in group]))
    return found


# A prototype at the start of a line of a .c file (extern or not).
SOURCE_PROTOTYPE = re.compile(r"^(?:extern\s+)?(?!static|typedef|return|else)[A-Za-z][\w *]*?"
                              r"\b([a-z_][a-z0-9_]*)\s*\([^;{}()]*(?:\([^;{}()]*\)[^;{}()]*)*\)"
                              r"[^;{}=]*;", re.M)


def prototypes_in_sources(repo):
    """(file, line, function, where it is defined) for each function a .c
    file declares but does not define: a tie the headers do not show."""
    repo = Path(repo)
    defined = {}
    sources = sorted(repo.glob("daemon/**/*.c"))
    for c in sources:
        for name in DEFINITION.findall(c.read_text(errors="replace")):
            defined.setdefault(name, []).append(str(c.relative_to(repo)))
    bad = []
    for c in sources:
        text = c.read_text(errors="replace")
        rel = str(c.relative_to(repo))
        for m in SOURCE_PROTOTYPE.finditer(text):
            name = m.group(1)
            where = defined.get(name, [])
            if rel in where:
                continue
            bad.append((rel, text.count("\n", 0, m.start()) + 1, name, ", ".join(where)))
    return bad


def folder_cycles(repo):
    """(folder, files) for each cycle of calls between the files of one
    folder: each such group is one unit split in two, or needs a third file
    both call."""
    return [(folder, group) for folder, edges in folder_calls(repo).items()
            for group in strongly_connected(edges)]


def main():
    repo = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parents[1])
    bad = back_edges(repo)
    for rel, stage, h, to in bad:
        print(f"{rel} ({stage}) includes {h} ({to})" if h else f"{rel}: {to}")
    misplaced = misplaced_functions(repo)
    for h, stage, name, where in misplaced:
        print(f"daemon/{h} ({stage}) declares {name}(), defined in {where or 'no folder'}")
    cycles = folder_cycles(repo)
    for folder, group in cycles:
        print(f"daemon/{folder}: calls go round {' <-> '.join(group)}")
    ties = stage_cycles(repo)
    for stage, group in ties:
        print(f"daemon/{stage}: files tied both ways {' <-> '.join(group)}")
    hidden = prototypes_in_sources(repo)
    for rel, line, name, where in hidden:
        print(f"{rel}:{line} declares {name}(), defined in {where or 'no file'}: "
              "a prototype belongs in the header of the file that defines it")
    return 1 if bad or misplaced or cycles or ties or hidden else 0


if __name__ == "__main__":
    sys.exit(main())
