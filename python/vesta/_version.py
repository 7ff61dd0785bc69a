"""The package's version: the one source (pyproject.toml reads it through the build backend)."""
__version__ = "0.2.0"
