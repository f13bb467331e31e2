"""The runtime on the host: the C graph tables of a plan, the Interpreter, run timing."""
