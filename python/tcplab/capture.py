"""Which packet captures a run writes (``tcplab run --pcap``): selectors resolved to
the engine's channels, one libpcap file each (see ``crates/engine/src/pcap.rs`` for
what the files hold)."""

from __future__ import annotations

import re
from pathlib import Path

from .scenario import ScenarioError
from .scenario.errors import suggest

#: Bytes kept of each packet unless --snaplen says otherwise: the IPv4 header and the
#: largest TCP header.
DEFAULT_SNAPLEN = 80


def _file_name(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.#-]+", "_", name.replace("->", "-to-")) + ".pcap"


def capture_files(selectors: list[str], channel_names: list[str], first_hops: list[int | None], flow_ids: list[str],
                  directory: Path) -> list[tuple[str, list[int]]]:
    """(file, channels) for each selector: ``all`` (every link direction, a file each),
    a link direction id (that direction), or a flow id (both directions of the link
    its sender is attached to, as a capture on the sending host would see them)."""
    files: dict[str, list[int]] = {}
    for selector in selectors:
        if selector == "all":
            for c, name in enumerate(channel_names):
                files[_file_name(name)] = [c]
        elif selector in channel_names:
            files[_file_name(selector)] = [channel_names.index(selector)]
        elif selector in flow_ids:
            hop = first_hops[flow_ids.index(selector)]
            if hop is None:
                raise ScenarioError("--pcap", f"flow {selector!r} has no route to capture")
            files[_file_name(selector)] = [hop, hop ^ 1]
        else:
            raise ScenarioError("--pcap", f"expected all, a flow or a link direction, got {selector!r}"
                                f"{suggest(selector, [*flow_ids, *channel_names])}")
    return [(str(directory / name), channels) for name, channels in files.items()]
