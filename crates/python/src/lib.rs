//! `tcplab._core`: the thin Python binding of `tcplab-engine`.
//!
//! No logic lives here: it moves a JSON scenario in and a JSON summary plus binary
//! series columns out, maps the engine's two error kinds to Python exceptions (in
//! this one place), and releases the GIL while simulating.

#![warn(missing_docs)]

use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};
use std::sync::Mutex;
use tcplab_engine::series_tables::Column;
use tcplab_engine::{ConfigError, InternalError, SimTime};

create_exception!(
    _core,
    EngineConfigError,
    PyValueError,
    "The engine rejected a scenario: args are (path, message)."
);
create_exception!(
    _core,
    EngineInternalError,
    PyException,
    "The engine detected a bug in itself (e.g. broken packet conservation)."
);

fn config_error(e: ConfigError) -> PyErr {
    EngineConfigError::new_err((e.path, e.message))
}

fn internal_error(e: InternalError) -> PyErr {
    EngineInternalError::new_err(e.to_string())
}

/// Events between two looks at Python's signal handlers (about 0.1–1 s of work).
const SIGNAL_CHECK_EVENTS: u64 = 2_000_000;

/// A simulation built from a JSON scenario, advanced in steps, finished once.
#[pyclass(module = "tcplab._core")]
struct Simulation {
    inner: Mutex<Option<tcplab_engine::Simulation>>,
    duration_ns: u64,
}

impl Simulation {
    fn with<R>(&self, f: impl FnOnce(&mut tcplab_engine::Simulation) -> R) -> PyResult<R> {
        let mut guard = self
            .inner
            .lock()
            .map_err(|_| PyRuntimeError::new_err("simulation lock poisoned"))?;
        let sim = guard
            .as_mut()
            .ok_or_else(|| PyRuntimeError::new_err("simulation already finished"))?;
        Ok(f(sim))
    }
}

#[pymethods]
impl Simulation {
    /// Validates the scenario and builds the network. `seed`, if given, replaces the
    /// configuration's `simulation.seed`: the replications of a sweep's point share
    /// one configuration text instead of serializing it once per seed.
    #[new]
    #[pyo3(signature = (config_json, seed = None))]
    fn new(config_json: &str, seed: Option<u64>) -> PyResult<Self> {
        let mut config =
            tcplab_engine::ScenarioConfig::from_json(config_json).map_err(config_error)?;
        if let Some(seed) = seed {
            config.simulation.seed = seed;
        }
        let sim = tcplab_engine::Simulation::new(config).map_err(config_error)?;
        let duration_ns = sim.duration().as_ns();
        Ok(Simulation {
            inner: Mutex::new(Some(sim)),
            duration_ns,
        })
    }

    /// Runs all events up to `t_ns` (capped at the end of the run), without the GIL.
    /// Every [`SIGNAL_CHECK_EVENTS`] events it takes the GIL back to run Python's
    /// signal handlers, so Ctrl-C and SIGTERM stop even a step that would take hours.
    fn run_until(&self, py: Python<'_>, t_ns: u64) -> PyResult<()> {
        let until = SimTime::from_ns(t_ns);
        while !py.detach(|| self.with(|sim| sim.run_until_at_most(until, SIGNAL_CHECK_EVENTS)))? {
            py.check_signals()?;
        }
        Ok(())
    }

    /// Each channel's results id, in channel order.
    fn channel_names(&self) -> PyResult<Vec<String>> {
        self.with(|sim| sim.channel_names())
    }

    /// The channel each flow enters the network on (None: no route).
    fn first_hops(&self) -> PyResult<Vec<Option<usize>>> {
        self.with(|sim| sim.first_hops())
    }

    /// Captures the channels listed for each file into that libpcap file, keeping
    /// `snaplen` bytes of each packet (see `tcplab_engine::pcap`).
    fn capture(&self, files: Vec<(String, Vec<usize>)>, snaplen: u32) -> PyResult<()> {
        // The engine opens no file: the binding does, and hands it the writers.
        let mut targets = Vec::with_capacity(files.len());
        for (path, channels) in files {
            let file = std::fs::File::create(&path)
                .map_err(|e| pyo3::exceptions::PyOSError::new_err(format!("{path}: {e}")))?;
            targets.push(tcplab_engine::pcap::CaptureTarget {
                out: Box::new(std::io::BufWriter::new(file)),
                channels,
            });
        }
        let spec = tcplab_engine::pcap::CaptureSpec {
            files: targets,
            snaplen,
        };
        self.with(|sim| {
            let capture = tcplab_engine::pcap::PcapCapture::new(sim.config(), spec)?;
            sim.set_observer(Box::new(capture));
            Ok::<(), std::io::Error>(())
        })?
        .map_err(|e| pyo3::exceptions::PyOSError::new_err(e.to_string()))
    }

    /// Every flow's counters so far as a JSON list, in flow order (delivered and
    /// received bytes, packets sent and lost, retransmits, cwnd, SRTT): for interval
    /// reports while the run goes on.
    fn snapshot(&self) -> PyResult<String> {
        self.with(|sim| serde_json::to_string(&sim.flow_snapshots()))?
            .map_err(|e| PyRuntimeError::new_err(e.to_string()))
    }

    /// Current simulated time, ns.
    #[getter]
    fn now_ns(&self) -> PyResult<u64> {
        self.with(|sim| sim.now().as_ns())
    }

    /// Simulated length of the run, ns.
    #[getter]
    fn duration_ns(&self) -> u64 {
        self.duration_ns
    }

    /// Events processed so far.
    #[getter]
    fn events(&self) -> PyResult<u64> {
        self.with(|sim| sim.events())
    }

    /// Runs to the end, checks conservation, and returns `(summary_json, tables)`.
    /// The summaries are JSON (the series lists in it empty); with `series=True`,
    /// `tables` maps "flow", "link" and "delay" to lists of `(column, dtype, bytes)`
    /// (dtype "u8", "u16", "u32", "u64", "f32" or "f64", native byte order; see
    /// `tcplab_engine::series_tables`),
    /// else it is `None` (what the benchmarks compare, and sweeps without series).
    #[pyo3(signature = (series = true))]
    fn finish<'py>(
        &self,
        py: Python<'py>,
        series: bool,
    ) -> PyResult<(String, Option<Bound<'py, PyDict>>)> {
        let sim = self
            .inner
            .lock()
            .map_err(|_| PyRuntimeError::new_err("simulation lock poisoned"))?
            .take()
            .ok_or_else(|| PyRuntimeError::new_err("simulation already finished"))?;
        let mut sim = sim;
        // A capture is closed (its buffered records written) once the run is over.
        sim.run_until(sim.duration());
        if let Some(mut observer) = sim.take_observer() {
            observer
                .close()
                .map_err(|e| pyo3::exceptions::PyOSError::new_err(e.to_string()))?;
        }
        let mut results = py.detach(|| sim.finish()).map_err(internal_error)?;
        let tables = if series {
            let tables = results.take_series_tables();
            let dict = PyDict::new(py);
            for (name, table) in [
                ("flow", tables.flow),
                ("link", tables.link),
                ("delay", tables.delay),
            ] {
                let columns = PyList::empty(py);
                // Each column is copied into Python piece by piece, each piece freed
                // once copied, so the series exist about once.
                for (column, values) in table {
                    let (dtype, bytes) = match values {
                        Column::U8(parts) => ("u8", concat_bytes(py, parts)?),
                        Column::U16(parts) => ("u16", concat_bytes(py, parts)?),
                        Column::U32(parts) => ("u32", concat_bytes(py, parts)?),
                        Column::U64(parts) => ("u64", concat_bytes(py, parts)?),
                        Column::F32(parts) => ("f32", concat_bytes(py, parts)?),
                        Column::F64(parts) => ("f64", concat_bytes(py, parts)?),
                    };
                    columns.append((column, dtype, bytes))?;
                    release_freed_memory();
                }
                dict.set_item(name, columns)?;
            }
            Some(dict)
        } else {
            results.drop_series();
            None
        };
        Ok((results.to_json(), tables))
    }
}

/// Hands memory the allocator holds free back to the operating system. The engine's
/// series are freed piece by piece as they are copied into Python, but glibc keeps
/// freed pieces of this size for reuse (its mmap threshold rises with what is freed),
/// and Python's large buffers never reuse them: without this the series would exist
/// twice in resident memory after all.
fn release_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns unused heap pages to the kernel; it has no
    // preconditions and touches no live allocation.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// One Python `bytes` holding `parts` end to end; each part is freed as soon as it is
/// copied, so a column never exists twice in full.
fn concat_bytes<T: Copy>(py: Python<'_>, parts: Vec<Vec<T>>) -> PyResult<Bound<'_, PyBytes>> {
    let len = parts
        .iter()
        .map(|p| std::mem::size_of_val(p.as_slice()))
        .sum();
    PyBytes::new_with(py, len, move |buf| {
        let mut at = 0;
        for part in parts {
            let bytes = as_bytes(&part);
            buf[at..at + bytes.len()].copy_from_slice(bytes);
            at += bytes.len();
        }
        Ok(())
    })
}

/// The bytes of a slice of plain numbers, in native order.
fn as_bytes<T: Copy>(values: &[T]) -> &[u8] {
    // SAFETY: only instantiated with unsigned integers, f32 and f64, which have no padding and no
    // invalid bit patterns as bytes; the length covers exactly the slice.
    unsafe {
        std::slice::from_raw_parts(values.as_ptr().cast::<u8>(), std::mem::size_of_val(values))
    }
}

/// Validates a JSON scenario without running it.
#[pyfunction]
fn validate(config_json: &str) -> PyResult<()> {
    tcplab_engine::Simulation::from_json(config_json)
        .map(|_| ())
        .map_err(config_error)
}

/// The estimated cost of running a JSON scenario (events, peak memory by part), as
/// JSON; see `tcplab_engine::estimate`. Raises `EngineConfigError` like `validate`.
#[pyfunction]
fn estimate(config_json: &str) -> PyResult<String> {
    let config = tcplab_engine::ScenarioConfig::from_json(config_json).map_err(config_error)?;
    let estimate = tcplab_engine::estimate::estimate(&config).map_err(config_error)?;
    Ok(estimate.to_json())
}

/// Every congestion-control algorithm with its parameters' defaults and its presets,
/// as JSON: `{name: {"defaults": {...}, "presets": {...}}}`.
#[pyfunction]
fn congestion_controls() -> String {
    tcplab_engine::CcConfig::catalogue().to_string()
}

/// The JSON Schema of scenario files (`tcplab_engine::format`), as JSON text: the key
/// lists, choices, defaults and help the front end and `tcplab schema` use.
#[pyfunction]
fn scenario_schema() -> String {
    tcplab_engine::format::json_schema().to_string()
}

/// Each flow's forward and reverse routes of a JSON scenario, as channel indices
/// (channel `2i` is link `i` from its `from` end, `2i + 1` the way back), as the
/// simulator routes them; raises `EngineConfigError` like `validate`.
#[pyfunction]
fn flow_routes(config_json: &str) -> PyResult<Vec<FlowRoutes>> {
    let config = tcplab_engine::ScenarioConfig::from_json(config_json).map_err(config_error)?;
    let plan = tcplab_engine::validate::plan(&config).map_err(config_error)?;
    Ok(plan.routes)
}

/// An emulated host: node index, name, IPv4 address, device MTU.
type EmuHost = (u32, String, String, u32);
/// A flow's forward and reverse routes, as channel indices.
type FlowRoutes = [Vec<u32>; 2];

/// The hosts an emulated run of a JSON scenario needs (the ends of its flows), as
/// `[(node index, name, IPv4 address, device MTU)]`, and each flow's forward and
/// reverse routes as channel indices; raises `EngineConfigError` for a scenario the
/// emulator cannot run (see `tcplab_engine::emulate`).
#[pyfunction]
fn emu_plan(config_json: &str) -> PyResult<(Vec<EmuHost>, Vec<FlowRoutes>)> {
    let net = emulated_network(config_json)?;
    let hosts = net
        .hosts()
        .iter()
        .map(|&(node, mtu)| {
            let [a, b, c, d] = tcplab_engine::emulate::host_address(node);
            let name = net.config().nodes[node as usize].name.clone();
            (node, name, format!("{a}.{b}.{c}.{d}"), mtu)
        })
        .collect();
    Ok((hosts, net.flow_routes().to_vec()))
}

fn emulated_network(config_json: &str) -> PyResult<tcplab_engine::emulate::EmulatedNetwork> {
    let config = tcplab_engine::ScenarioConfig::from_json(config_json).map_err(config_error)?;
    tcplab_engine::emulate::EmulatedNetwork::new(config).map_err(config_error)
}

/// Runs the emulator's forwarder (`tcplab_emu::forward`) for a JSON scenario between
/// the hosts' TUN devices `ports` (`[(node index, fd)]`) until `stop_fd` is readable,
/// with time zero at `start_ns` on the monotonic clock, without the GIL. Returns JSON:
/// the forwarder's `stats`, each flow's packets as the network saw them (`flows`: per
/// bin sent and dropped data packets and received IP bytes; reverse totals), and every
/// link direction's `links` summary and `link_series` as the simulator reports them.
#[pyfunction]
fn emu_forward(
    py: Python<'_>,
    config_json: &str,
    ports: Vec<(u32, i32)>,
    stop_fd: i32,
    start_ns: u64,
) -> PyResult<String> {
    let mut net = emulated_network(config_json)?;
    let ports: Vec<tcplab_emu::Port> = ports
        .into_iter()
        .map(|(node, fd)| tcplab_emu::Port { node, fd })
        .collect();
    let max_packet = net
        .hosts()
        .iter()
        .map(|&(_, mtu)| mtu as usize)
        .max()
        .unwrap_or(1500);
    let duration = SimTime(net.config().simulation.duration_ns);
    py.detach(|| {
        let stats = tcplab_emu::forward(&mut net, &ports, stop_fd, start_ns, max_packet)
            .map_err(|e| PyRuntimeError::new_err(format!("forwarder: {e}")))?;
        let (links, series) = net.link_results(duration);
        let flows: Vec<_> = net
            .flow_counters()
            .iter()
            .map(|f| {
                serde_json::json!({
                    "sent_packets": f.bin_sent_packets,
                    "dropped_packets": f.bin_dropped_packets,
                    "received_bytes": f.bin_received_bytes,
                    "packets_delivered": f.packets_delivered,
                    "drops": {"queue": f.drops[0], "red": f.drops[1], "random": f.drops[2]},
                    "reverse": {"packets_sent": f.reverse[0], "packets_delivered": f.reverse[1],
                                "packets_dropped": f.reverse[2]},
                })
            })
            .collect();
        Ok(serde_json::json!({
            "stats": {
                "read_packets": stats.read_packets,
                "dropped_at_entry": stats.dropped_at_entry,
                "unroutable": stats.unroutable,
                "written_packets": stats.written_packets,
                "write_failures": stats.write_failures,
                "lateness_mean_ms": stats.lateness_mean_ns / 1e6,
                "lateness_max_ms": stats.lateness_max_ns as f64 / 1e6,
                "lateness_bounds_ms": tcplab_emu::LATENESS_BOUNDS_NS.map(|b| b as f64 / 1e6),
                "lateness_histogram": stats.lateness_histogram,
                "wakeups": stats.wakeups,
            },
            "flows": flows,
            "links": links,
            "link_series": series,
            "link_pacing": net.link_pacing().iter().zip(&links).map(|(p, link)| serde_json::json!({
                "intervals": p.intervals, "model_s": p.model_ns as f64 / 1e9,
                "achieved_bps": p.achieved_bps(link.bandwidth_bps),
            })).collect::<Vec<_>>(),
        })
        .to_string())
    })
}

/// The port flow `flow`'s receiver listens on in an emulated run (the forwarder tells
/// a flow's packets by it).
#[pyfunction]
fn emu_flow_port(flow: usize) -> u16 {
    tcplab_engine::emulate::flow_port(flow)
}

/// The IPv4 address node `index` carries in packet captures (`pcap::node_address`),
/// dotted, for the hosts file written beside them.
#[pyfunction]
fn pcap_node_address(index: usize) -> String {
    let [a, b, c, d] = tcplab_engine::pcap::node_address(index);
    format!("{a}.{b}.{c}.{d}")
}

/// Jain's fairness index of `values` (`None` for none or all zeros): the engine's, for
/// results assembled in Python (an emulated run's flows).
#[pyfunction]
fn jain_index(values: Vec<f64>) -> Option<f64> {
    tcplab_engine::metrics::jain_index(&values)
}

/// A flow's goodput over the whole bins in the last quarter of [`start_ns`, `end_ns`]
/// from its delivered bytes per bin (`bin_ns` wide, the run `duration_ns` long): the
/// engine's `goodput_tail_bps`, for results assembled in Python.
#[pyfunction]
fn tail_goodput_bps(
    delivered: Vec<u64>,
    bin_ns: u64,
    duration_ns: u64,
    start_ns: u64,
    end_ns: u64,
) -> PyResult<Option<f64>> {
    if bin_ns == 0 || end_ns < start_ns {
        return Err(PyValueError::new_err(
            "tail_goodput_bps: bin_ns must be positive and end_ns at least start_ns",
        ));
    }
    let mut counts = tcplab_engine::metrics::BinCounts::zeros(delivered.len());
    for (i, &bytes) in delivered.iter().enumerate() {
        counts.set(i, bytes);
    }
    let bins = tcplab_engine::metrics::Binning::new(SimTime(bin_ns), SimTime(duration_ns));
    Ok(tcplab_engine::results::tail_goodput_bps(
        &counts,
        bins,
        SimTime(start_ns),
        SimTime(end_ns),
    ))
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Simulation>()?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(estimate, m)?)?;
    m.add_function(wrap_pyfunction!(congestion_controls, m)?)?;
    m.add_function(wrap_pyfunction!(scenario_schema, m)?)?;
    m.add_function(wrap_pyfunction!(emu_plan, m)?)?;
    m.add_function(wrap_pyfunction!(flow_routes, m)?)?;
    m.add_function(wrap_pyfunction!(emu_forward, m)?)?;
    m.add_function(wrap_pyfunction!(jain_index, m)?)?;
    m.add_function(wrap_pyfunction!(tail_goodput_bps, m)?)?;
    m.add_function(wrap_pyfunction!(emu_flow_port, m)?)?;
    m.add_function(wrap_pyfunction!(pcap_node_address, m)?)?;
    m.add("EngineConfigError", m.py().get_type::<EngineConfigError>())?;
    m.add(
        "EngineInternalError",
        m.py().get_type::<EngineInternalError>(),
    )?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
