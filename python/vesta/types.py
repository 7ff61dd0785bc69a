"""Every object of the API as a class (``vesta.types.BenchRun``, ``vesta.types.Video``, …), the
Literal aliases of its enumerations (``BenchStatus``, ``VideoState``) and the error catalogue:
generated from openapi/openapi.json into ``vesta._generated``, re-exported here."""
from ._generated import *  # noqa: F401,F403
from ._generated import __all__ as __all__
