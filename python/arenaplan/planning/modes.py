"""The planning modes: how a plan chooses a variant for every op."""

#: "size": the least scratch everywhere; "speed": the fastest variant everywhere;
#: "balanced": the fastest plan within a budget (or the target's pools).
MODES = ("size", "speed", "balanced")
