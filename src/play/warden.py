"""The warden of an external player: a small parent process that starts the
player's program and, when that program exits or the warden is told to stop
(SIGTERM, or its own parent gone), ends every process the program started,
those that began a session of their own and double-forked included.

    python -m xenophon.play.warden PARENT_PID PROGRAM ARGS...

(PARENT_PID: the referee's, so that a warden whose referee died before it
could watch for that ends at once.)

On Linux the warden is a child subreaper (`prctl(PR_SET_CHILD_SUBREAPER)`):
a descendant whose parent dies is handed to the warden, not to init, so the
whole tree stays below it, where psutil finds it. Elsewhere it ends what it
can still see below it; the referee kills the warden's process group too
(`xenophon.play.external`). The program inherits the warden's standard
input, output and error, which the warden itself then lets go of, so that
the referee reads the program's end of the pipes only. The warden exits as
the program did: its exit status, or killed by the same signal.

What a warden cannot stop: a program that kills its warden first
(both run as the same user) leaves its escaped descendants to init.
"""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
from typing import Any, NoReturn

#: prctl options (linux/prctl.h)
PR_SET_PDEATHSIG, PR_SET_CHILD_SUBREAPER = 1, 36
#: rounds of killing what is left below the warden at most (a fork between
#: listing and killing is found by the next round)
KILL_ROUNDS = 100


class Stop(Exception):
    """The warden was told to end the program (SIGTERM)."""


def _prctl(option: int, value: int) -> bool:
    """Sets a Linux process option; False where there is no prctl."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return bool(libc.prctl(option, value, 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False


_stopping: list[bool] = []  # told to stop once already


def _stop(_signal: int, _frame: object) -> None:
    """SIGTERM: a Stop, once (a second SIGTERM, the parent's death after its
    own, must not break off the ending)."""
    if not _stopping:
        _stopping.append(True)
        raise Stop


def guard(parent: int) -> None:
    """Makes this process the subreaper of what it starts, and ends it
    (SIGTERM, so that it ends them first) when its parent dies."""
    _prctl(PR_SET_CHILD_SUBREAPER, 1)
    signal.signal(signal.SIGTERM, _stop)
    if _prctl(PR_SET_PDEATHSIG, signal.SIGTERM) and os.getppid() != parent:
        raise Stop  # the parent died before the option was set


def let_go_of_standard_streams() -> None:
    """Input, output and error on /dev/null: the program alone holds the pipes."""
    null = os.open(os.devnull, os.O_RDWR)
    for descriptor in (0, 1, 2):
        os.dup2(null, descriptor)
    os.close(null)


def wait_for(pid: int) -> int:
    """Waits for the program `pid` to exit, reaping any orphan handed to the
    warden meanwhile; the program's wait status, left unreaped (its process
    group cannot be taken by another process until it is; where there is no
    waitid, reaped)."""
    if not hasattr(os, "waitid"):
        while True:
            pid_done, status = os.wait()
            if pid_done == pid:
                return os.waitstatus_to_exitcode(status)
    while True:
        info = os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOWAIT)
        if info is None:
            continue
        if info.si_pid == pid:
            return _status(info)
        os.waitpid(info.si_pid, 0)


def _status(info: os.waitid_result) -> int:
    """A waitpid-style status from a waitid result: code >= 0, or -signal."""
    if info.si_code == os.CLD_EXITED:
        return info.si_status
    return -info.si_status


def import_psutil() -> None:
    """Imports psutil while the program runs (it takes tens of milliseconds:
    not before the program starts, nor at its end); SIGTERM waits for it."""
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
    try:
        import psutil  # noqa: F401
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})


def end_descendants() -> None:
    """Kills every process below the warden and reaps them all."""
    import psutil  # imported already, unless the program ended first

    kill_below(psutil.Process())
    _reap_exited()


def kill_below(root: Any) -> None:
    """Kills every process below `root` (a psutil.Process), round after round
    until two listings in a row find the same processes, none alive (a
    process alive when listed may fork and exit before it is looked at:
    the next listing finds its child); zombies are left to their parent."""
    import psutil

    settled: set[int] | None = None  # the last listing, when none in it was alive
    for _ in range(KILL_ROUNDS):
        below = root.children(recursive=True)
        alive = [child for child in below if _alive(child)]
        listed = {child.pid for child in below}
        if not alive and listed == settled:
            return
        settled = None if alive else listed
        for child in alive:
            try:
                child.kill()
            except psutil.Error:
                pass
        psutil.wait_procs(alive, timeout=0.05)


def _alive(process: Any) -> bool:
    import psutil

    try:
        return bool(process.status() != psutil.STATUS_ZOMBIE)
    except psutil.Error:
        return False


def _reap_exited() -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def exit_as(status: int) -> NoReturn:
    """Exits with the program's status: its code, or killed by its signal."""
    if status >= 0:
        os._exit(status)
    try:
        import resource

        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # no core file of the warden's
        signal.signal(-status, signal.SIG_DFL)
        os.kill(os.getpid(), -status)
    except (ValueError, OSError):
        pass
    os._exit(128 - status)


def main(argv: list[str]) -> NoReturn:
    if len(argv) < 2 or not argv[0].isdigit():
        print("usage: python -m xenophon.play.warden PARENT_PID PROGRAM ARGS...", file=sys.stderr)
        os._exit(2)
    parent, argv = int(argv[0]), argv[1:]
    status = 128 + signal.SIGTERM
    try:
        guard(parent)
        try:
            # in the warden's process group, which the referee kills as a last resort
            player = subprocess.Popen(argv).pid
        except OSError as error:
            print(f"the program could not start: {error}", file=sys.stderr)
            os._exit(127)
        let_go_of_standard_streams()
        import_psutil()
        status = wait_for(player)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # in the try: a SIGTERM before is a Stop
    except (Stop, KeyboardInterrupt):
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    end_descendants()
    exit_as(status)


if __name__ == "__main__":
    main(sys.argv[1:])
