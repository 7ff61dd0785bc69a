"""Results: read-only objects with snake_case attributes over the API's JSON.

Every API object (``vesta.BenchRun``, ``vesta.Video``, …; generated into ``vesta._generated``)
keeps the JSON it was made from: attributes read it (nested objects become their classes, lists
new lists), ``to_dict()`` returns a deep copy of it with the API's own field names, and two
objects are equal when their JSON is. Fields a newer server adds are kept in ``to_dict()``.
"""
from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any, ClassVar, Dict, Mapping, Optional, Tuple

if TYPE_CHECKING:
    from ._core import Response



class ApiObject:
    """Base class of every result object."""

    __slots__ = ("_data", "_response")
    #: The snake_case attribute names (for ``repr``).
    _FIELDS: ClassVar[Tuple[str, ...]] = ()

    def __init__(self, data: Mapping[str, Any], response: "Optional[Response]" = None) -> None:
        self._data: Dict[str, Any] = dict(data)
        self._response = response

    @property
    def http_response(self) -> "Optional[Response]":
        """The HTTP answer this object came in (``status``, ``headers``, ``request_id``,
        ``elapsed``); None for an object nested in another."""
        return self._response

    def __getitem__(self, key: str) -> Any:
        """The API's JSON value of ``key`` (its own field name), as 0.1 results (plain dicts)
        answered it: ``run["progress"]["tasks_done"]`` is ``run.progress.tasks_done``."""
        return self._data[key]

    def to_dict(self) -> Dict[str, Any]:
        """The API's JSON of this object (its own field names), as a new ``dict``."""
        return copy.deepcopy(self._data)

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other._data == self._data  # type: ignore[attr-defined]

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._FIELDS)
        return f"{type(self).__name__}({shown})"


