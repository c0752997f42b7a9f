//! `tcplab._core`: the thin Python binding of `tcplab-engine`.
//!
//! No logic lives here: it moves a JSON scenario in and a JSON result out, maps the
//! engine's two error kinds to Python exceptions (in this one place), and releases
//! the GIL while simulating.

use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use std::sync::Mutex;
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
    /// Validates the scenario and builds the network.
    #[new]
    fn new(config_json: &str) -> PyResult<Self> {
        let sim = tcplab_engine::Simulation::from_json(config_json).map_err(config_error)?;
        let duration_ns = sim.duration().as_ns();
        Ok(Simulation {
            inner: Mutex::new(Some(sim)),
            duration_ns,
        })
    }

    /// Runs all events up to `t_ns` (capped at the end of the run), without the GIL.
    fn run_until(&self, py: Python<'_>, t_ns: u64) -> PyResult<()> {
        py.detach(|| self.with(|sim| sim.run_until(SimTime::from_ns(t_ns))))
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

    /// Runs to the end, checks conservation, and returns the results as JSON. With
    /// `series=False` the per-bin time series and delay histograms are left out (the
    /// summaries only: what the benchmarks compare, a fraction of the JSON to parse).
    #[pyo3(signature = (series = true))]
    fn finish(&self, py: Python<'_>, series: bool) -> PyResult<String> {
        let sim = self
            .inner
            .lock()
            .map_err(|_| PyRuntimeError::new_err("simulation lock poisoned"))?
            .take()
            .ok_or_else(|| PyRuntimeError::new_err("simulation already finished"))?;
        let mut results = py.detach(|| sim.finish()).map_err(internal_error)?;
        if !series {
            results.drop_series();
        }
        Ok(results.to_json())
    }
}

/// Validates a JSON scenario without running it.
#[pyfunction]
fn validate(config_json: &str) -> PyResult<()> {
    tcplab_engine::Simulation::from_json(config_json)
        .map(|_| ())
        .map_err(config_error)
}

/// Every congestion-control algorithm with its parameters' defaults and its presets,
/// as JSON: `{name: {"defaults": {...}, "presets": {...}}}`.
#[pyfunction]
fn congestion_controls() -> String {
    tcplab_engine::CcConfig::catalogue().to_string()
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Simulation>()?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(congestion_controls, m)?)?;
    m.add("EngineConfigError", m.py().get_type::<EngineConfigError>())?;
    m.add(
        "EngineInternalError",
        m.py().get_type::<EngineInternalError>(),
    )?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
