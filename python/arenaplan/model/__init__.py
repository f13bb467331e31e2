"""Models: the graph record, importers, the built-in zoo and quantisation helpers."""
