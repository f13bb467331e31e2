"""The package version (one place: pyproject reads it too, if it is told to)."""
__version__ = "0.1.0"
