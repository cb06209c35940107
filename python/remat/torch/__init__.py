"""Remat for PyTorch (docs/python.md): capture a training step into a Remat graph, apply a plan to it,
measure it, or all three for a budget in one call (`best_plan`). Pure Python over torch (1.13 and 2.x):
it imports without the engine's bindings; `best_plan` needs them (PYTHONPATH=build/python)."""

from ._apply import AppliedStep, PlanError, apply, in_place_pins, normalize
from ._best import BestPlan, appliable, best_plan
from ._capture import Capture, TrainingStep, capture
from ._measure import Measurement, measure
from ._trace import CaptureError

__all__ = ["AppliedStep", "BestPlan", "Capture", "CaptureError", "Measurement", "PlanError", "TrainingStep",
           "appliable", "apply", "best_plan", "capture", "in_place_pins", "measure", "normalize"]
