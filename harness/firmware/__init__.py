"""Exported plans built into host programs and Cortex-M images and run (``build``): the
mains, startup code and linker script the images link."""
