"""Type stubs of the compiled engine binding (crates/python/src/lib.rs)."""

__version__: str

class EngineConfigError(ValueError):
    """The engine refused the configuration (a range, a reference, a route)."""

class EngineInternalError(RuntimeError):
    """The engine found a bug in itself (e.g. packets not conserved)."""

ColumnList = list[tuple[str, str, bytes]]

class Simulation:
    """One run of the engine, built from its JSON configuration."""

    def __init__(self, config_json: str, seed: int | None = None) -> None:
        """``seed``, if given, replaces the configuration's simulation.seed."""
    def run_until(self, t_ns: int) -> None:
        """Runs until simulated time ``t_ns`` (Ctrl-C is looked at every 2M events)."""
    def snapshot(self) -> str:
        """Every flow's counters so far, as a JSON list in flow order."""
    def channel_names(self) -> list[str]:
        """Each channel's results id ("a->b"), in channel order."""
    def first_hops(self) -> list[int | None]:
        """The channel each flow enters the network on."""
    def capture(self, files: list[tuple[str, list[int]]], snaplen: int) -> None:
        """Writes the listed channels to libpcap files (OSError if one cannot be created)."""
    @property
    def now_ns(self) -> int: ...
    @property
    def duration_ns(self) -> int: ...
    @property
    def events(self) -> int: ...
    def finish(self, series: bool = True) -> tuple[str, dict[str, ColumnList] | None]:
        """Runs to the end, checks conservation; the summaries as JSON and, with
        ``series``, the time series as ``{"flow"|"link"|"delay": [(column, dtype, bytes)]}``."""

def validate(config_json: str) -> None:
    """Raises EngineConfigError if the engine would refuse the configuration."""

def estimate(config_json: str) -> str:
    """The run's estimated cost (events, memory) as JSON."""

def congestion_controls() -> str:
    """Every congestion-control algorithm's parameter defaults and presets, as JSON."""

def scenario_schema() -> str:
    """The JSON Schema (draft 2020-12) of scenario files, as JSON text."""

def emu_plan(config_json: str) -> tuple[list[tuple[int, str, str, int]], list[list[list[int]]]]:
    """The hosts an emulated run needs — (node index, name, IPv4 address, device MTU) —
    and each flow's [forward, reverse] route as channel indices; EngineConfigError for
    a scenario the emulator cannot run."""

def flow_routes(config_json: str) -> list[list[list[int]]]:
    """Each flow's [forward, reverse] route as channel indices (channel 2i is link i
    from its ``from`` end, 2i + 1 back), as the simulator routes them."""

def emu_forward(config_json: str, ports: list[tuple[int, int]], stop_fd: int, start_ns: int) -> str:
    """Forwards between the hosts' TUN devices ``[(node, fd)]`` until ``stop_fd`` is
    readable, time zero at ``start_ns`` (CLOCK_MONOTONIC); stats, flows, links and
    link series as JSON."""

def pcap_node_address(index: int) -> str:
    """The IPv4 address node ``index`` carries in packet captures, dotted."""

def emu_flow_port(flow: int) -> int:
    """The port flow ``flow``'s receiver listens on in an emulated run."""

def jain_index(values: list[float]) -> float | None:
    """Jain's fairness index of ``values`` (None for none or all zeros)."""

def tail_goodput_bps(delivered: list[int], bin_ns: int, duration_ns: int, start_ns: int, end_ns: int) -> float | None:
    """Goodput over the whole bins in the last quarter of [start_ns, end_ns]."""
