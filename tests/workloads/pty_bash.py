"""pty_bash.py PIDFILE GOFILE LINESFILE — an interactive bash on a pty.

Starts `bash --norc --noprofile -i` on a pseudo-terminal (so that it reads
its input with readline), writes its pid to PIDFILE, waits until GOFILE
exists, then types each line of LINESFILE (bytes as they are, one line at
a time, waiting for the prompt after each) and finally `exit`.  Exits
with bash's exit status; whatever bash prints is read and dropped.
"""
import os
import pty
import select
import sys
import time

PROMPT = b"bpfspec$ "


def drain(fd, until=None, timeout=10.0):
    """Reads fd until UNTIL shows up in what was read (or TIMEOUT passes)."""
    seen = b""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.05)
        if not ready:
            if until is None:
                return seen
            continue
        try:
            chunk = os.read(fd, 4096)
        except OSError:
            return seen
        if not chunk:
            return seen
        seen += chunk
        if until is not None and seen.endswith(until):
            return seen
    return seen


def main():
    pidfile, gofile, linesfile = sys.argv[1:4]
    with open(linesfile, "rb") as f:
        lines = f.read().split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    env = {"PATH": "/usr/bin:/bin", "TERM": "dumb", "HOME": "/tmp", "PS1": PROMPT.decode(),
           "LC_ALL": "C.UTF-8"}
    pid, fd = pty.fork()
    if pid == 0:
        os.execve("/bin/bash", ["bash", "--norc", "--noprofile", "-i"], env)
    drain(fd, PROMPT)
    with open(pidfile + ".tmp", "w") as f:
        f.write(str(pid))
    os.rename(pidfile + ".tmp", pidfile)
    deadline = time.monotonic() + 60
    while not os.path.exists(gofile) and time.monotonic() < deadline:
        drain(fd)
    for line in lines + [b"exit"]:
        os.write(fd, line + b"\n")
        drain(fd, PROMPT if line != b"exit" else None, 10.0)
    _, status = os.waitpid(pid, 0)
    sys.exit(os.waitstatus_to_exitcode(status))


main()
