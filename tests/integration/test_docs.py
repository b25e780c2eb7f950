"""Man pages, shell completion and docs/protocol.md: they lint clean and
cover every taoctl command, every configuration key, every protocol command
and status field, derived from the code, the shipped config and a running
taod so that an undocumented addition fails here."""
import json
import re
import subprocess

from conftest import REPO, TAOCTL, host_only

pytestmark = host_only

PAGES = ["taod.8", "taoctl.8", "taod.conf.5"]


def taoctl_help():
    """{command: its --help line}: a command's line is indented two spaces,
    what it does four more."""
    p = subprocess.run([str(TAOCTL), "--help"], capture_output=True, text=True)
    block = (p.stdout + p.stderr).split("Commands")[1].split("Exit codes")[0]
    return {m.group(1): m.group(0) for m in re.finditer(r"^  (\S+).*$", block, re.M)}


def taoctl_commands():
    return list(taoctl_help())


def config_keys():
    keys = set()
    for line in (REPO / "config/taod.conf").read_text().splitlines():
        m = re.match(r"^#?\s*([a-z_]+)\s*=", line)
        if m:
            keys.add(m.group(1))
    return keys


def rendered(page):
    p = subprocess.run(["groff", "-man", "-Tutf8", "-ww", str(REPO / "man" / page)],
                       capture_output=True, text=True, timeout=30)
    assert p.stderr == "", p.stderr
    return re.sub(r".\x08", "", p.stdout)


def test_man_pages_lint_clean():
    """groff -ww and man --warnings say nothing, and no source holds a
    control character (a "\\f" a script turned into a form feed renders as
    stray letters, and groff does not warn of it)."""
    for page in PAGES:
        assert rendered(page).strip()
        p = subprocess.run(["man", "--warnings", "-l", str(REPO / "man" / page)],
                           capture_output=True, text=True, timeout=30,
                           env={"PATH": "/usr/bin:/bin", "MANPAGER": "cat", "LC_ALL": "C.UTF-8"})
        assert p.returncode == 0 and p.stderr == "", (page, p.stderr)
        source = (REPO / "man" / page).read_text()
        bad = sorted({hex(ord(c)) for c in source if ord(c) < 32 and c != "\n"})
        assert not bad, f"{page} holds control characters {bad}"


def continues_tag(line):
    """Whether a font macro line goes on with an option's synopsis ("[", "]"
    or "|" words): then the .TP tag above it was cut after its first line."""
    m = re.match(r"^\.(?:B|I|BR|RB|IR|RI|BI|IB)\s+(.*)$", line)
    return bool(m) and any(w.strip('"').startswith(("[", "]", "|")) or w.endswith("]")
                           for w in m.group(1).split())


def test_man_page_tags_are_whole():
    """A .TP tag is the one line after it: an option's synopsis spread over
    several macro lines is rendered with all but its first line in the body."""
    for page in PAGES:
        lines = (REPO / "man" / page).read_text().splitlines()
        cut = [f"{page}:{i + 2}: {lines[i + 1]}" for i, line in enumerate(lines[:-2])
               if line == ".TP" and continues_tag(lines[i + 2])]
        assert not cut, "tags cut after their first line:\n" + "\n".join(cut)


def test_taoctl_page_names_every_option():
    """Each of taoctl's own options (daemon/taoctl/taoctl.c's table), short
    and long, has an entry under OPTIONS."""
    text = (REPO / "daemon/taoctl/taoctl.c").read_text()
    table = text.split("main_opts[] = {")[1].split("};")[0]
    opts = re.findall(r'\{"([a-z-]+)", \'(.)\'', table)
    assert len(opts) >= 5
    page = rendered("taoctl.8").split("\nOPTIONS\n")[1].split("\nCOMMANDS\n")[0]
    for name, letter in opts:
        assert re.search(rf"^ +-{letter}, --{name}\b", page, re.M), f"taoctl.8 lacks -{letter}"


def test_size_suffixes_agree():
    """Every page that lists the size suffixes lists what parse_size_bytes
    takes (daemon/common/parse.c), binary."""
    parse = (REPO / "daemon/common/parse.c").read_text()
    letters = re.search(r'suffixes\[\] = "B([A-Z]+)"', parse).group(1)
    want = ", ".join(letters[:-1]) + " or " + letters[-1]
    for page in PAGES:
        text = flat(rendered(page))
        lists = re.findall(r"\bK, M(?:, [A-Z])*(?: or [A-Z])?", text)
        assert all(x == want for x in lists), (page, lists, want)
        assert not lists or "(binary: 1K = 1024 bytes" in text, f"{page}: say binary"
    assert want in flat(rendered("taod.conf.5")) and want in flat(rendered("taoctl.8"))


def test_taoctl_page_names_every_command():
    text = rendered("taoctl.8")
    commands = taoctl_commands()
    assert len(commands) >= 10
    for c in commands:
        assert re.search(rf"^\s+{re.escape(c)}\b", text, re.M), f"taoctl.8 lacks {c}"


def test_config_page_names_every_key():
    text = rendered("taod.conf.5")
    missing = [k for k in sorted(config_keys()) if not re.search(rf"\b{k}\b", text)]
    assert not missing, f"taod.conf.5 lacks {missing}"


def complete(*words):
    line = " ".join(("taoctl",) + words)
    # taoctl on the PATH, as where it is installed: the completion asks it
    # for the action words.
    script = (f"PATH={TAOCTL.parent}:$PATH; source {REPO}/completion/taoctl.bash; "
              f"COMP_WORDS=(taoctl {' '.join(words)}); "
              f"COMP_CWORD={len(words)}; COMP_LINE='{line}'; _taoctl; "
              "printf '%s\\n' \"${COMPREPLY[@]}\"")
    out = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    return set(out.stdout.split())


def test_completion_offers_commands_and_values():
    assert set(taoctl_commands()) <= complete("")
    assert complete("top") == {"top-tasks"}
    assert complete("cgroups", "--sort", "split") == {"splits", "split_rate", "split_ratio"}
    assert complete("report", "--format", "") == {"table", "json", "csv", "html"}
    assert "shatter" in complete("act", "")
    assert complete("--socket", "/tmp/x", "abu") == {"abusers"}


def action_kinds():
    """(word, rung) of each row of the action kinds' table, in its order."""
    text = (REPO / "daemon/common/action_kinds.h").read_text()
    return [(m.group(1), m.group(2) == "true")
            for m in re.finditer(r'X\(\w+, "([a-z-]+)", (true|false),', text)]


def flat(text):
    return re.sub(r"\s+", " ", text)


def test_docs_list_every_action_kind_as_the_table_has_them():
    """A new action kind is a row of daemon/common/action_kinds.h: taoctl's
    usage and the completion come from it; these lists are held to it."""
    kinds = action_kinds()
    words = [w for w, _ in kinds]
    rungs = ", ".join(["observe"] + [w for w, rung in kinds if rung])
    assert len(words) >= 6 and rungs.startswith("observe, warn")
    man = (REPO / "man/taoctl.8").read_text()
    assert f"Send one request ({', '.join(words)})" in flat(man), "taoctl.8's act list"
    policies = (REPO / "docs/policies.md").read_text()
    acting = policies.split("| action | TAO backend | stock backend |")[1].split("\n\n")[0]
    assert re.findall(r"^\| ([a-z-]+) \|", acting, re.M) == words, "policies.md's action table"
    assert f"lists rungs ({rungs}, in this order)" in flat(policies), "policies.md's ladder rungs"
    conf5 = (REPO / "man/taod.conf.5").read_text()
    assert f"Rungs ({rungs})" in flat(conf5), "taod.conf.5's ladder rungs"
    assert complete("act", "") == set(words)
    p = subprocess.run([str(TAOCTL), "act"], capture_output=True, text=True)
    assert f"ACTION: {', '.join(words)}" in p.stderr, p.stderr


def protocol_commands():
    """The command table the daemon dispatches on (daemon/control/commands.c)."""
    text = (REPO / "daemon/control/commands.c").read_text()
    table = text.split("static const struct command commands[] = {")[1].split("};")[0]
    return re.findall(r'\{"([a-z-]+)",', table)


def test_protocol_doc_names_every_command_and_status_field(daemon):
    doc = (REPO / "docs/protocol.md").read_text()
    commands = protocol_commands()
    assert len(commands) >= 10
    for c in commands:
        assert re.search(rf"^\| `{re.escape(c)}`", doc, re.M), f"protocol.md lacks {c}"
    status = json.loads(daemon.request(b'{"command": "status"}\n'))
    missing = [k for k in status if f"`{k}`" not in doc]
    assert not missing, f"protocol.md lacks status fields {missing}"


def top_level_names(cell):
    """The `names` of a protocol.md table cell outside any [...], {...} or (...)."""
    names, depth = [], 0
    for m in re.finditer(r"`([a-z_]+)`|[\[{(]|[\]})]", cell):
        if m.group(1):
            names += [m.group(1)] if depth == 0 else []
        else:
            depth += 1 if m.group(0) in "[{(" else -1
    return names


def test_protocol_doc_lists_a_cgroups_row_in_reply_order(daemon):
    """A `cgroups` row's fields, the per-cgroup counters of taod/thp_observe.h's
    list among them, are documented by name and in the order taod sends them."""
    doc = (REPO / "docs/protocol.md").read_text()
    row = re.search(r"^\| `cgroups` \|.*$", doc, re.M).group(0)
    cell = row.split("`cgroups`: [{", 1)[1]
    reply = json.loads(daemon.request(b'{"command": "cgroups"}\n'))
    assert reply["cgroups"], "the daemon sees at least its own cgroup"
    assert top_level_names(cell) == list(reply["cgroups"][0]), "protocol.md's cgroups row"


def test_default_socket_path_is_spelled_one_way():
    """The compiled-in default (daemon/config/config.h) is what the socket
    unit listens on and what the shipped config and the docs name."""
    default = re.search(r'#define TAOD_DEFAULT_SOCKET\s+"([^"]+)"',
                        (REPO / "daemon/config/config.h").read_text()).group(1)
    assert f"ListenStream={default}\n" in (REPO / "systemd/taod.socket").read_text()
    assert re.search(rf"^socket = {re.escape(default)}$",
                     (REPO / "config/taod.conf").read_text(), re.M)
    for doc in ("man/taod.8", "man/taoctl.8", "man/taod.conf.5", "docs/protocol.md"):
        text = (REPO / doc).read_text()
        paths = set(re.findall(r"/run/taod/[\w.]+\.sock", text))
        assert paths == {default}, f"{doc}: {paths}"
