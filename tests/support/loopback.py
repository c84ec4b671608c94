"""Which TCP connections of this process and its descendants leave loopback (`ss -tn`, by process).

Ray started by a test (and every actor, table service and bot it runs) must talk over 127.0.0.1
only; ``outside_loopback()`` lists the established connections of this process tree that have an
end elsewhere, as ``ss`` prints them, so a test can assert the list is empty.
"""

from __future__ import annotations

import ipaddress
import os
import re
import subprocess
from pathlib import Path

_USERS = re.compile(r"pid=(\d+)")


def descendants(root: int) -> set[int]:
    """``root`` and every process below it, from /proc (parents by ``stat`` field 4)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:  # it exited while we looked
            continue
        parent = int(stat[stat.rindex(")") + 2 :].split()[1])
        children.setdefault(parent, []).append(int(entry.name))
    found, todo = set(), [root]
    while todo:
        pid = todo.pop()
        if pid not in found:
            found.add(pid)
            todo.extend(children.get(pid, ()))
    return found


def _loopback(address: str) -> bool:
    host = address.rsplit(":", 1)[0].strip("[]")
    ip = ipaddress.ip_address(host.split("%")[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_loopback


def outside_loopback(root: int | None = None) -> list[str]:
    """Established TCP connections of ``root`` (default: this process) and its descendants with
    an address that is not loopback (``ss -tnpH`` lines)."""
    ours = descendants(os.getpid() if root is None else root)
    listing = subprocess.run(["ss", "-tnpH", "state", "established"], capture_output=True, text=True, check=True)
    offending = []
    for line in listing.stdout.splitlines():
        pids = {int(p) for p in _USERS.findall(line)}
        if not pids & ours:
            continue
        fields = line.split()
        local, peer = fields[2], fields[3]
        if not (_loopback(local) and _loopback(peer)):
            offending.append(line.strip())
    return offending


def connections_of(root: int | None = None) -> int:
    """How many established TCP connections this process tree has (to show the check saw some)."""
    ours = descendants(os.getpid() if root is None else root)
    listing = subprocess.run(["ss", "-tnpH", "state", "established"], capture_output=True, text=True, check=True)
    return sum(1 for line in listing.stdout.splitlines() if {int(p) for p in _USERS.findall(line)} & ours)
