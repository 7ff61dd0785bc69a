"""How ``run_with_pipeline`` calls the user's pipeline: the arguments its signature accepts.

A pipeline may be written ``generate(prompt)`` (as diffusers pipelines are called),
``generate(prompt, seed)``, ``generate(prompt, seed=None, **kw)``, ``generate(prompt, seed, context)``
or with ``seed`` / ``context`` as keyword-only parameters. The signature is read once, before
anything is created on the server, and an unusable one (no parameter for the prompt, a required
parameter the runner cannot fill) is a ``TypeError`` at once.
"""
from __future__ import annotations

import inspect
from typing import Any, Callable, Dict, List, Tuple, Type

#: The names under which a parameter receives the context (``PipelineContext``).
CONTEXT_NAMES = ("context", "ctx")
SEED_NAME = "seed"

#: What a pipeline's first call may raise that is a mistake in the code, not a failed clip:
#: the run is cancelled and the error raised in the caller's process (docs/python.md).
PROGRAMMING_ERRORS: Tuple[Type[Exception], ...] = (TypeError, NameError, AttributeError, ImportError)


class PipelineCall:
    """The arguments to pass: :meth:`arguments` (prompt, seed, context) -> ``(args, kwargs)``."""

    def __init__(self, positional: List[str], keywords: Dict[str, str], description: str) -> None:
        #: "prompt", "seed", "context" in the order they are passed by position.
        self.positional = positional
        #: parameter name -> "seed" / "context", passed by keyword.
        self.keywords = keywords
        #: How the pipeline is called, for messages: ``generate(prompt, seed=seed)``.
        self.description = description

    def arguments(self, prompt: str, seed: int, context: Any) -> Tuple[Tuple[Any, ...], Dict[str, Any]]:
        values: Dict[str, Any] = {"prompt": prompt, "seed": seed, "context": context}
        return tuple(values[v] for v in self.positional), {k: values[v] for k, v in self.keywords.items()}


def _name_of(fn: Any) -> str:
    return str(getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or type(fn).__name__)


def resolve_call(pipeline: Callable[..., Any]) -> PipelineCall:
    """Reads ``pipeline``'s signature; raises ``TypeError`` when no call could work."""
    if not callable(pipeline):
        raise TypeError(
            f"run_with_pipeline needs a callable, got a {type(pipeline).__name__}: "
            "def generate(prompt, seed=None, context=None) -> clip"
        )
    name = _name_of(pipeline)
    historical = PipelineCall(["prompt", "seed", "context"], {}, f"{name}(prompt, seed, context)")
    try:
        sig = inspect.signature(pipeline)
    except (TypeError, ValueError):
        # No readable signature (some builtins and C extensions): the historical call.
        return historical
    params = list(sig.parameters.values())
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if not positional:
        if any(p.kind == p.VAR_POSITIONAL for p in params):
            return historical  # def generate(*args): a wrapper that passes everything on
        raise TypeError(
            f"the pipeline {name}{sig} has no positional parameter for the prompt: "
            "write it as def generate(prompt, seed=None, context=None)"
        )

    def cannot_fill(what: str, param: str) -> TypeError:
        return TypeError(
            f"the pipeline {name}{sig} requires the {what} {param!r}, which run_with_pipeline cannot fill "
            "(it passes the prompt, and the seed and the context to parameters named seed and context)"
        )

    passed = ["prompt"]
    # After the prompt: a parameter named seed / context (or ctx) gets that value; a required one
    # with another name gets the next of seed, context (the historical call(prompt, seed, context));
    # one with a default and another name (a diffusers pipeline's height=...) is left alone, and
    # so is every parameter after it.
    for p in positional[1:]:
        if p.name == SEED_NAME and "seed" not in passed:
            passed.append("seed")
        elif p.name in CONTEXT_NAMES and "context" not in passed:
            passed.append("context")
        elif p.default is p.empty:
            left = [v for v in ("seed", "context") if v not in passed]
            if not left:
                raise cannot_fill("parameter", p.name)
            passed.append(left[0])
        else:
            break
    keywords: Dict[str, str] = {}
    for p in params:
        if p.kind != p.KEYWORD_ONLY:
            continue
        if p.name == SEED_NAME and "seed" not in passed:
            keywords[p.name] = "seed"
        elif p.name in CONTEXT_NAMES and "context" not in passed and "context" not in keywords.values():
            keywords[p.name] = "context"
        elif p.default is p.empty:
            raise cannot_fill("keyword", p.name)
    shown = ", ".join(passed + [f"{k}={v}" for k, v in keywords.items()])
    return PipelineCall(passed, keywords, f"{name}({shown})")
