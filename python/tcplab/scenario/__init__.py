"""Scenario files: units, schema, topology shorthands, loading and overrides."""

from .errors import ScenarioError
from .loader import Scenario, apply_override, load

__all__ = ["Scenario", "ScenarioError", "apply_override", "load"]
