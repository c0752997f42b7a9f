"""The emulation backend: a scenario over the real Linux stack (docs/emulation.md).

Each host is a network namespace whose only interface is a TUN device; the
forwarder — the engine's own link models (``tcplab_engine::emulate``) driven by the
wall clock — carries packets between them; tcplab's traffic generators run the
scenario's applications as real sockets. :func:`emulate` returns the simulator's
result type, so reports, comparisons and sweeps read emulated runs unchanged.
"""

from __future__ import annotations

from .run import EmuError, emulate, require_root
from .support import EmulationRefused

__all__ = ["EmuError", "EmulationRefused", "emulate", "require_root"]
