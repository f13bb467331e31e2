"""Model importers: turn a file format into an ``arenaplan.Model``."""
from .tflite import load_tflite, parse_tflite

__all__ = ["load_tflite", "parse_tflite"]
