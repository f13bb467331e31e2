"""Exports of a plan for a firmware build: C sources (``c``) and the stack bound of the
exported entry point (``stack_usage``)."""
from .c import ExportedC, c_identifier, export_c
from .stack_usage import StackReport, stack_usage

__all__ = ["ExportedC", "c_identifier", "export_c", "StackReport", "stack_usage"]
