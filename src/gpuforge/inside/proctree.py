"""Process groups and what a hung child waits on: for the probe (run by the interpreter under
test, Python 2.7 ... 3.13) and for gpuforge itself (processes.py).

A child started with ``group_kwargs()`` leads its own process group, so ``kill_group`` ends it
with everything it started (a g++ wrapper's compiler, Theano's g++ under an import). Before the
kill, ``waiting_on`` names the newest process of the group and the chain that started it, from
Linux's /proc (an empty list elsewhere): what to tell the user instead of "it hung".
"""

import os
import signal
import sys
import time

POSIX = os.name == "posix"
CREATE_NEW_PROCESS_GROUP = 0x00000200  # Windows' creation flag (subprocess's, Python 3.7+)


def group_kwargs():
    """Popen keyword arguments that start the child as the leader of a new process group."""
    if not POSIX:
        return {"creationflags": CREATE_NEW_PROCESS_GROUP}
    if sys.version_info[0] >= 3:
        return {"start_new_session": True}
    return {"preexec_fn": os.setsid}


def kill_group(proc, settle=2.0):
    """SIGKILL to ``proc``'s process group (POSIX), or to ``proc`` alone (Windows); on Linux it
    returns once no member of the group is still running (at most ``settle`` seconds): the kill
    is asynchronous, and "stopped with everything it started" is said only after it."""
    try:
        if POSIX:
            os.killpg(proc.pid, signal.SIGKILL)
        else:
            proc.kill()
    except OSError:  # ended already (ProcessLookupError), or not ours
        return
    if POSIX:
        deadline = time.time() + settle
        while _running(proc.pid) and time.time() < deadline:
            time.sleep(0.01)


def _running(pgid):
    """Whether a member of group ``pgid`` still runs (a zombie, already dead, does not count)."""
    return any(fields[0] not in (b"Z", b"X") for _, fields in _group_stats(pgid))


def _group_stats(pgid):
    """(pid, the fields of /proc/PID/stat after the command name) of each process in group
    ``pgid``; an empty list without /proc."""
    found = []
    try:
        names = os.listdir("/proc")
    except OSError:
        return found
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(os.path.join("/proc", name, "stat"), "rb") as fh:
                fields = fh.read().rpartition(b")")[2].split()
            if int(fields[2]) == pgid:
                found.append((int(name), fields))
        except (IOError, OSError, ValueError, IndexError):  # Python 2: IOError is not an OSError
            continue  # it ended meanwhile
    return found


def _members(pgid):
    """(pid, parent pid, start time, command line) of each process in group ``pgid``."""
    members = []
    for pid, fields in _group_stats(pgid):
        try:
            with open(os.path.join("/proc", str(pid), "cmdline"), "rb") as fh:
                words = [w for w in fh.read().split(b"\0") if w]
        except (IOError, OSError):
            continue  # it ended meanwhile
        words = [w.decode("utf-8", "replace") for w in words]
        line = " ".join([os.path.basename(words[0])] + words[1:])[:120] if words else "?"
        members.append((pid, int(fields[1]), int(fields[19]), line))
    return members


def waiting_on(pid):
    """The chain of programs from ``pid``'s child down to the newest process of its group (the
    one it waits on): ``["g++ -dumpversion", "sleep 1000"]``; empty when ``pid`` is alone."""
    members = dict((m[0], m) for m in _members(pid))
    others = [m for m in members.values() if m[0] != pid]
    if not others:
        return []
    leaf = max(others, key=lambda m: (m[2], m[0]))
    chain = [leaf]
    while chain[-1][1] in members and chain[-1][1] != pid and len(chain) < 20:
        chain.append(members[chain[-1][1]])
    return [m[3] for m in reversed(chain)]
