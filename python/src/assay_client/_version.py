"""The package's version: the repository's (package.json and pyproject.toml hold the same)."""

__version__ = "0.1.0"
