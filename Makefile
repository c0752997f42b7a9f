# tcplab: set-up and developer commands. The README's two set-up commands are
# `make demo` and `make test`; each installs everything it needs into .venv first.

VENV ?= .venv
PYTHON ?= python3
BIN := $(VENV)/bin
STAMP := $(VENV)/.tcplab-installed
RUST_SOURCES := $(shell find crates -name '*.rs' -o -name Cargo.toml) Cargo.toml Cargo.lock pyproject.toml

.PHONY: install demo test test-heavy lint test-rust test-python differential differential-kernel bench bench-engine bench-memory fuzz properties advise-studies test-packaging fmt clean

$(BIN)/python:
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "tcplab needs Python >= 3.11")'
	$(PYTHON) -m venv $(VENV)

$(VENV)/.deps-installed: $(BIN)/python requirements/dev.lock.txt
	@echo "installing pinned Python packages into $(VENV)"
	@$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements/dev.lock.txt
	@touch $@

# Builds the Rust engine into the Python package (release mode) and installs it.
# Its output (cargo's progress, pip's "Requirement already satisfied") goes to a log,
# shown only if the build fails, so that `make demo` prints the summary and little else.
$(STAMP): $(VENV)/.deps-installed $(RUST_SOURCES)
	@echo "building the engine (release; a few minutes the first time, log in $(VENV)/build.log)"
	@VIRTUAL_ENV=$(abspath $(VENV)) $(BIN)/maturin develop --release --locked --quiet > $(VENV)/build.log 2>&1 \
		|| (cat $(VENV)/build.log; exit 1)
	@# Bytecode up front: the editable install would otherwise recompile tcplab on
	@# every start where PYTHONDONTWRITEBYTECODE is set.
	@$(BIN)/python -m compileall -q python/tcplab
	@touch $@

install: $(STAMP)

## Main job: run the bundled default scenario (summary table, results and plots in results/default).
demo: install
	$(BIN)/tcplab run scenarios/default.toml --out results/default

## Every test: formatting, lints and types (Rust and Python), the Rust engine (unit +
## integration) and Python (CLI, API, scenarios).
test: install lint test-rust test-python

lint: install
	cargo fmt --all -- --check
	cargo clippy --locked --profile test-release --all-targets -- -D warnings
	RUSTDOCFLAGS="-D warnings" cargo doc --locked --no-deps -p tcplab-engine -p tcplab-emu
	$(BIN)/ruff check python/tcplab
	$(BIN)/mypy

test-rust:
	cargo test --locked --profile test-release -p tcplab-engine -p tcplab-emu

# Two passes: the tests that keep no real-time clock on every core (whole files per
# worker, so a file's shared fixtures run once), then the real-time ones (emulation,
# real hosts) one at a time on the otherwise idle machine they need.
test-python: install
	$(BIN)/python -m pytest -n auto --dist loadfile -m "not heavy and not realtime"
	$(BIN)/python -m pytest -m "realtime and not heavy"

## The long versions of checks whose short versions `make test` runs: the response
## functions at their lowest loss rate, the emulated agreement cases beyond the two in
## the suite (pytest's `heavy` marker). The other long ones have targets of their own:
## differential, differential-kernel, fuzz, properties, advise-studies.
test-heavy: install
	TCPLAB_HEAVY=1 cargo test --locked --profile test-release -p tcplab-engine --test cc_validation
	$(BIN)/python -m pytest -m heavy

## The whole differential suite against ns-2 (tests/ns2/README.md; CI runs a reduced set
## in `make test`); writes tests/ns2/RESULTS.md and, for the congestion-control modules,
## tests/ns2/LINUX_CC.md with cwnd figures, and ns-2's runs of the highspeed, lan and jumbo
## studies' own points (python/tcplab/studies/*/ns2.json). Needs the Debian package ns2.
## Then the sampled comparisons of docs/differential.md (60 scenarios each of ns-2's
## Agent/TCP, TCP/Linux and Agent/SCTP; reports in tests/differential/ns2-*/REPORT.md).
## Each comparison exits 1 when it misses a target; `-` runs the rest all the same
## (the reports say what missed).
differential: install
	@command -v ns >/dev/null || { echo "ns-2 missing: apt-get install ns2 (or run make test once as root)"; exit 2; }
	-$(BIN)/python tests/ns2/run.py --out tests/ns2/RESULTS.md
	-$(BIN)/python tests/ns2/linux_cc.py --out tests/ns2
	-$(BIN)/python tests/ns2/sctp.py --study
	-$(BIN)/python tests/ns2/studies.py --study highspeed
	-$(BIN)/python tests/ns2/studies.py --study lan --seeds 3
	-$(BIN)/python tests/ns2/studies.py --study jumbo --seeds 5
	-$(BIN)/python tests/differential/ns2.py --space ns2-tcp --sample 60 --seed 1 --out tests/differential/ns2-tcp
	-$(BIN)/python tests/differential/ns2.py --space ns2-linux --sample 60 --seed 1 --out tests/differential/ns2-linux
	-$(BIN)/python tests/differential/ns2.py --space ns2-sctp --sample 60 --seed 1 --out tests/differential/ns2-sctp

## 48 scenarios of docs/differential.md over the real Linux stack and in the simulator
## (needs root; about 45 minutes); report in tests/differential/kernel/REPORT.md.
differential-kernel: install
	$(BIN)/tcplab crosscheck --sample 48 --seed 1 --out tests/differential/kernel

## tcplab vs ns-2, ns-3 and htsim on benchmarks B1-B3, the scaling sweep (with htsim), the
## fat-tree point and a sweep's cost per run outside the engine; installs the peers if
## missing (ns2 from Debian, ns3 from PyPI, htsim built from ../shared/peers/csg-htsim)
## and writes benchmarks/RESULTS.md.
bench: install
	$(BIN)/python benchmarks/run.py --scaling --sack-cliff --fat-tree --sweep-overhead $(BENCH_ARGS)

## The fuzzer on 10,000 cases: 6,000 scenarios, 1,000 commands on its outputs, 2,500 sweep files,
## 500 study files (CI: 80, 12, 12, 4), as two fuzzers side by side (one per core; about
## an hour here). Outcome counts, failing cases in tests/fuzz-failures/{outputs,files}/.
## FUZZ_ARGS="--cases N" to change the scenario count of each.
FUZZ_ARGS ?=
fuzz: install
	cd tests && { ../$(BIN)/python -m fuzz.run --cases 3000 --output-cases 1000 $(FUZZ_ARGS) \
			--failures fuzz-failures/outputs & outputs=$$!; \
		../$(BIN)/python -m fuzz.run --cases 3000 --seed 20261127 --sweep-cases 2500 --study-cases 500 \
			$(FUZZ_ARGS) --failures fuzz-failures/files; files=$$?; \
		wait $$outputs && test $$files = 0; }

## Plain `pip install .` into a fresh venv, every subcommand's --help and one run (also
## part of `make test`: tests/test_packaging.py).
test-packaging:
	bash tests/packaging_check.sh

## The TCP property test on 300 random paths (CI runs 40): tests/test_tcp_properties.py;
## and the recovery fuzzer on 30,000 random option sets and losses (CI runs 1,000).
properties: install
	TCPLAB_PROPERTY_EXAMPLES=300 $(BIN)/python -m pytest -q tests/test_tcp_properties.py
	TCPLAB_RECOVERY_CASES=30000 cargo test --locked --profile test-release -p tcplab-engine --lib recovery_fuzz

## `tcplab advise` on each study's own setting at its own scale and duration (CI runs
## short, scaled versions): tests/test_advise.py with TCPLAB_ADVISE_FULL=1.
advise-studies: install
	TCPLAB_ADVISE_FULL=1 $(BIN)/python -m pytest -q -rxX tests/test_advise.py -k "highspeed or lfn or lan or jumbo or sctp"

## Memory per time-series cell of a full `tcplab run` (31 million cells, three cases).
bench-memory: install
	$(BIN)/python benchmarks/series_memory.py

## Engine-only throughput (events/s and packets/s on a saturated UDP dumbbell).
bench-engine:
	cargo bench --locked -p tcplab-engine

fmt:
	cargo fmt --all

clean:
	rm -rf $(VENV) target results
