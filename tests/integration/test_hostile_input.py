"""Hostile and odd input never hangs taod or taoctl, crashes them, eats
memory or acts on the wrong thing: what is at the socket path, drop-ins
that are not files, odd bytes in a config file or a request, a moved taod,
crafted history databases."""
import socket
import subprocess

from conftest import TAOD, attach_conf


def base_conf(tmp_path, sock, extra=""):
    conf = tmp_path / "taod.conf"
    conf.write_text(attach_conf() + f"[daemon]\ntick = 200ms\n[control]\nsocket = {sock}\n"
                    f"[history]\npath = {tmp_path / 'history.db'}\n" + extra)
    return conf


def run_taod(*args, timeout=20):
    return subprocess.run([str(TAOD), *args], capture_output=True, text=True, timeout=timeout)


# The socket path -----------------------------------------------------------

def test_a_regular_file_at_the_socket_path_is_kept_and_refused(tmp_path):
    sock = tmp_path / "taod.sock"
    sock.write_text("the operator's notes\n")
    p = run_taod("-c", str(base_conf(tmp_path, sock)))
    assert p.returncode != 0, p.stderr
    assert f"control socket {sock}: a regular file is there, not a socket" in p.stderr, p.stderr
    assert sock.read_text() == "the operator's notes\n"


def test_a_directory_at_the_socket_path_is_refused_clearly(tmp_path):
    sock = tmp_path / "taod.sock"
    sock.mkdir()
    p = run_taod("-c", str(base_conf(tmp_path, sock)))
    assert p.returncode != 0, p.stderr
    assert f"control socket {sock}: a directory is there, not a socket" in p.stderr, p.stderr
    assert "Address already in use" not in p.stderr
    assert sock.is_dir()


def test_a_socket_another_program_listens_on_is_not_taken(tmp_path):
    sock = tmp_path / "taod.sock"
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as other:
        other.bind(str(sock))
        other.listen(1)
        p = run_taod("-c", str(base_conf(tmp_path, sock)))
        assert p.returncode != 0, p.stderr
        assert f"control socket {sock}: another program listens on it" in p.stderr, p.stderr
        assert sock.is_socket()


def test_a_stale_socket_is_replaced(daemon_factory, tmp_path):
    """What a killed taod leaves: a socket nobody listens on."""
    sock = tmp_path / "taod.sock"
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as old:
        old.bind(str(sock))
    d = daemon_factory()
    assert d.socket == str(sock)
    assert d.ctl("status")["ok"] is True


def test_check_config_refuses_a_socket_path_longer_than_sun_path(tmp_path):
    long_sock = "/run/" + "s" * 120 + ".sock"
    conf = base_conf(tmp_path, long_sock)
    p = run_taod("--check-config", "-c", str(conf))
    assert p.returncode == 1, p.stdout
    line = conf.read_text().splitlines().index(f"socket = {long_sock}") + 1
    assert f"{conf}:{line}: [control] socket" in p.stderr, p.stderr
    assert "at most 107 bytes" in p.stderr, p.stderr
    ok = base_conf(tmp_path, "/run/" + "s" * (107 - 5))
    p = run_taod("--check-config", "-c", str(ok))
    assert p.returncode == 0, p.stderr
