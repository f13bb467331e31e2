"""Planning: buffers and their placement over pools, targets, state, the plan context and
the choice of variants for every mode and the frontier, the Plan record and its files."""
