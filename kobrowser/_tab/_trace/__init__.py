"""Traces: the recorded steps of a run, written as one HTML page."""

from kobrowser._tab._trace._recorder import Trace, tracing
from kobrowser._tab._trace._step import TraceStep

__all__ = ["Trace", "TraceStep", "tracing"]
