"""assay from Python: a client for the assay evaluation API, with the standard library only."""

__version__ = "0.1.0"
