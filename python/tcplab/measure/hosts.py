"""The hosts file of ``tcplab measure``: which real machine plays each host of the
scenario, how to reach it, and the address its peers send to.

```toml
[host.sender]
ssh = "root@198.51.100.7"        # an SSH destination (user@host, or a Host of ~/.ssh/config)
address = "203.0.113.7"          # where the other hosts reach it (the data path)
ssh_options = ["-p", "2222"]     # optional: more arguments for ssh
python = "python3"               # optional: the remote interpreter (3.10 or newer)

[host.receiver]
netns = "lab-b"                  # or: a network namespace of this machine (tests, one-box labs)
address = "10.0.2.1"
```
"""

from __future__ import annotations

import ipaddress
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from ..scenario import ScenarioError
from ..scenario.errors import suggest

_KEYS = ("ssh", "netns", "address", "ssh_options", "python")


@dataclass(frozen=True)
class HostSpec:
    """One real host: how to start a program there (``ssh`` destination or ``netns``),
    the address its peers send to, and its interpreter."""

    name: str
    address: str
    ssh: str | None = None
    netns: str | None = None
    ssh_options: tuple[str, ...] = field(default_factory=tuple)
    python: str = "python3"

    @property
    def where(self) -> str:
        """How the host is reached, in words."""
        return f"ssh {self.ssh}" if self.ssh else f"network namespace {self.netns}"


def hosts_used(engine: dict) -> list[str]:
    """The hosts a compiled scenario's flows start or end at: what a hosts file must map."""
    return sorted({name for f in engine["flows"] for name in (f["from"], f["to"])})


def read_hosts(path: Path, needed: list[str]) -> dict[str, HostSpec]:
    """The hosts of ``path`` (a :class:`ScenarioError` naming the file and field for a
    malformed one), checking that every host in ``needed`` is there."""
    source = str(path)
    try:
        data = tomllib.loads(path.read_text())
    except FileNotFoundError:
        raise ScenarioError("", "no such file", source) from None
    except (OSError, UnicodeDecodeError) as e:
        raise ScenarioError("", f"cannot be read ({e})", source) from None
    except tomllib.TOMLDecodeError as e:
        raise ScenarioError("", f"malformed TOML: {e}", source) from None
    unknown = [k for k in data if k != "host"]
    if unknown:
        raise ScenarioError(unknown[0], "unknown key; a hosts file has [host.NAME] tables", source)
    tables = data.get("host")
    if not isinstance(tables, dict) or not tables:
        raise ScenarioError("host", 'expected [host.NAME] tables, e.g. [host.sender] ssh = "user@machine", '
                            'address = "192.0.2.1"', source)
    hosts = {}
    for name, t in tables.items():
        where = f"host.{name}"
        if not isinstance(t, dict):
            raise ScenarioError(where, "expected a table with ssh or netns, and address", source)
        for k in t:
            if k not in _KEYS:
                raise ScenarioError(f"{where}.{k}", f"unknown key{suggest(k, list(_KEYS))}; valid keys: {', '.join(_KEYS)}", source)
        if ("ssh" in t) == ("netns" in t):
            raise ScenarioError(where, "expected exactly one of ssh (an SSH destination) or netns (a network namespace)", source)
        for k in ("ssh", "netns", "python"):
            if k in t and (not isinstance(t[k], str) or not t[k].strip()):
                raise ScenarioError(f"{where}.{k}", "expected a non-empty string", source)
        address = t.get("address")
        try:
            ipaddress.IPv4Address(address)
        except (ipaddress.AddressValueError, ValueError, TypeError):
            raise ScenarioError(f"{where}.address", f"expected the IPv4 address the other hosts reach it at, got {address!r}",
                                source) from None
        options = t.get("ssh_options", [])
        if not isinstance(options, list) or not all(isinstance(o, str) for o in options):
            raise ScenarioError(f"{where}.ssh_options", 'expected a list of strings, e.g. ["-p", "2222"]', source)
        hosts[name] = HostSpec(name=name, address=str(address), ssh=t.get("ssh"), netns=t.get("netns"),
                               ssh_options=tuple(options), python=t.get("python", "python3"))
    for name in needed:
        if name not in hosts:
            raise ScenarioError(f"host.{name}", f"the scenario's flows use host {name!r}; the hosts file does not say "
                                f"which machine it is{suggest(name, list(hosts))}", source)
    return hosts
