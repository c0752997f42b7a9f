"""Differential testing across the scenario space (docs/differential.md): scenarios
drawn from a documented space (:mod:`.space`), run in tcplab and in an independent
reference — the Linux kernel through ``tcplab emu`` (:mod:`.kernel`), ns-2
(``tests/differential/ns2.py``) — and compared against stated agreement targets
(:mod:`.metrics`), one directory per scenario and a report (:mod:`.report`)."""
