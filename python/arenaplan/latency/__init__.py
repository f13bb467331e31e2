"""Latency sources: host measurement, cost models of targets, user tables; the speed probe."""
