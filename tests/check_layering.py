#!/usr/bin/python3
"""The include graph follows the pipeline, observe -> account -> decide ->
act -> report: a file may include the headers of its own stage and of the
stages before it, never of a later one. common and config come before every
stage; control, taoctl and the pipeline (daemon/*.c) may include anything.

A header belongs to the folder of the .c file of the same name; OWNER names
the folder of the others. A header no rule places is an error, so a new one
has to be placed here on purpose. A header is one folder's public face:
every function it declares is defined in that folder.

Usage: check_layering.py [REPO]   (prints the back edges, exit 1 if any)
"""
import re
import sys
from pathlib import Path

RANK = {"common": 0, "config": 1, "observe": 2, "account": 3, "decide": 4, "act": 5,
        "report": 6, "control": 7, "taoctl": 7, "pipeline": 7}

# Headers without a .c file of their name, and whose face they are.
OWNER = {
    "act": "act",          # the actor (actor.c)
    "act_backend": "act",  # the backends' interface (backend_*.c)
    "act_parts": "act",    # the act stage's building blocks
    "action": "decide",    # decide's requests to act (action_names.c), answered in the same records
    "bpf_shared": "observe",
    "split_cause_rules": "observe",  # the BPF programs' cause rules, beside bpf_shared
    "daemon": "pipeline",  # struct taod, the composition of the stages
    "history": "report",
    "json_fields": "common",
    "report": "report",
}

INCLUDE = re.compile(r'^\s*#\s*include\s+"taod/([A-Za-z0-9_]+)\.h"', re.M)


def header_owners(repo):
    owners = dict(OWNER)
    for c in (repo / "daemon").glob("*/*.c"):
        owners.setdefault(c.stem, c.parent.name)
    return owners


def stage_of(repo, f):
    """Stage of a source file or header, or None for a public header
    (placed by header_owners)."""
    rel = f.relative_to(repo)
    if rel.parts[0] == "include":
        return None
    return "pipeline" if len(rel.parts) == 2 else rel.parts[1]


def back_edges(repo):
    """(file, its stage, included header, the header's stage) for every
    include of a later stage's header, and for every header no rule places."""
    repo = Path(repo)
    owners = header_owners(repo)
    files = sorted(list(repo.glob("daemon/**/*.[ch]")) + list(repo.glob("include/taod/*.h")))
    bad = []
    for f in files:
        rel = str(f.relative_to(repo))
        stage = stage_of(repo, f) or owners.get(f.stem)
        if stage not in RANK:
            bad.append((rel, stage, None, "no stage: place it in OWNER"))
            continue
        for h in INCLUDE.findall(f.read_text(errors="replace")):
            to = owners.get(h)
            if to not in RANK:
                bad.append((rel, stage, h, "no stage: place it in OWNER"))
            elif RANK[to] > RANK[stage]:
                bad.append((rel, stage, h, to))
    return bad


# A prototype at file scope, and a function definition that is not static.
DECLARATION = re.compile(r"^(?!static|typedef|extern|struct \w+ \{)[A-Za-z][\w *]*?"
                         r"\b([a-z_][a-z0-9_]*)\s*\([^;{}]*\)[^;{}]*;", re.M)
DEFINITION = re.compile(r"^(?!static)[A-Za-z][\w *]*?\b([a-z_][a-z0-9_]*)\s*\([^;{}]*\)\s*\{",
                        re.M)


def misplaced_functions(repo):
    """(header, its stage, function, the stages defining it) for every
    function a public header declares but its own folder does not define."""
    repo = Path(repo)
    owners = header_owners(repo)
    defined = {}
    for c in repo.glob("daemon/**/*.c"):
        for name in DEFINITION.findall(c.read_text(errors="replace")):
            defined.setdefault(name, set()).add(stage_of(repo, c))
    bad = []
    for h in sorted(repo.glob("include/taod/*.h")):
        for name in DECLARATION.findall(h.read_text(errors="replace")):
            where = defined.get(name, set())
            if where != {owners.get(h.stem)}:
                bad.append((h.name, owners.get(h.stem), name, sorted(where)))
    return bad


def main():
    repo = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parents[1])
    bad = back_edges(repo)
    for rel, stage, h, to in bad:
        print(f"{rel} ({stage}) includes taod/{h}.h ({to})" if h else f"{rel}: {to}")
    misplaced = misplaced_functions(repo)
    for h, stage, name, where in misplaced:
        print(f"include/taod/{h} ({stage}) declares {name}(), defined in {where or 'no folder'}")
    return 1 if bad or misplaced else 0


if __name__ == "__main__":
    sys.exit(main())
