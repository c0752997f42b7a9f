"""``tcplab measure``: the same scenario between real hosts, and a real path measured
and written as a scenario (docs/measure.md).

Modules, one job each: :mod:`.hosts` (the hosts file: which machine is which host),
:mod:`.remote` (starting the agent over SSH or in a namespace; one clear error per
failure), :mod:`.agent` (what runs on a host: the emulator's traffic generators,
probes, provenance; sent over the SSH channel, nothing installed), :mod:`.run` (a
scenario's flows between the hosts, as a run's results), :mod:`.path` (``--path``:
RTT, rate, MTU, loss and buffer, and the path as a scenario).
"""

from .hosts import HostSpec, hosts_used, read_hosts
from .path import characterise, path_scenario
from .remote import MeasureError
from .run import measure

__all__ = ["HostSpec", "MeasureError", "characterise", "hosts_used", "measure", "path_scenario", "read_hosts"]
