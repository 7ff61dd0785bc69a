"""Writes vesta/_generated.py from openapi/openapi.json (run by `npm run generate:sdk`).

Every object schema of `components.schemas` (but request bodies) becomes a read-only ApiObject
class with snake_case properties (`to_dict()` keeps the API's JSON), the rest Literal aliases; the
error catalogue (`ErrorBody.code`, with each code's status from packages/server/src/errors.ts)
becomes `ErrorCode`, `ERROR_CODES` and one exception class per code under its status family; every
operation is listed in `OPERATIONS`. A test regenerates this file and fails on any diff.

    python3 python/scripts/generate_types.py [--check]
"""
from __future__ import annotations

import json
import keyword
import os
import re
import sys
from typing import Any, Dict, List, Set, Tuple, cast

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
DOC = os.path.join(REPO, "openapi", "openapi.json")
TARGET = os.path.join(os.path.dirname(HERE), "vesta", "_generated.py")
CATALOGUE = os.path.join(REPO, "packages", "server", "src", "errors.ts")
PREFIX = "#/components/schemas/"


def pascal(text: str) -> str:
    parts = re.split(r"[^A-Za-z0-9]+|_", text)
    return "".join(p[:1].upper() + p[1:] for p in parts if p)


def error_class(code: str) -> str:
    """`validation_failed` -> ValidationFailedError, `internal_error` -> InternalError (as in TypeScript)."""
    name = pascal(code.lower())
    return name if name.endswith("Error") else name + "Error"


def snake(name: str) -> str:
    """`videoId` -> `video_id`, `hasMore` -> `has_more`; already snake_case names stay."""
    out = re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()
    return out + "_" if keyword.iskeyword(out) or out in RESERVED else out


#: Names an ApiObject already uses.
RESERVED = {"to_dict", "http_response"}

#: Catalogue codes whose class is the status family itself (not a subclass of it).
FAMILY_CODES = {"not_found": "NotFoundError", "conflict": "ConflictError"}
#: The family class of each status.
FAMILIES = {400: "BadRequestError", 401: "AuthenticationError", 403: "PermissionDeniedError", 404: "NotFoundError",
            409: "ConflictError", 429: "RateLimitError"}


def read_statuses() -> Dict[str, int]:
    """code -> HTTP status of the server's error catalogue (packages/server/src/errors.ts)."""
    with open(CATALOGUE, encoding="utf-8") as f:
        text = f.read()
    body = text[text.index("ERROR_CATALOGUE"):]
    return {m.group(1): int(m.group(2)) for m in re.finditer(r"(\w+):\s*\{\s*status:\s*(\d+)", body)}


def family(status: int) -> str:
    return "InternalServerError" if status >= 500 else FAMILIES.get(status, "ApiError")


class Field:
    def __init__(self, key: str, type_: str, required: bool, doc: str, build: str) -> None:
        self.key = key
        self.type = type_
        self.required = required
        self.doc = doc
        #: An expression of `$` (the raw value) giving the Python value.
        self.build = build


class Generator:
    def __init__(self, doc: Dict[str, Any], statuses: Dict[str, int]) -> None:
        self.doc = doc
        self.statuses = statuses
        self.blocks: List[str] = []
        self.emitted: Set[str] = set()
        self.aliases: Dict[str, str] = {}

    def type_of(self, schema: Dict[str, Any], hint: str) -> Tuple[str, str]:
        """(Python type, expression building the value from the raw JSON value `$`)."""
        if "$ref" in schema:
            name = schema["$ref"][len(PREFIX):]
            target = self.doc["components"]["schemas"][name]
            if target.get("type") == "object" or "properties" in target:
                if target.get("properties") and all(k.isidentifier() for k in target["properties"]):
                    return name, f"{name}($)"
                return self.type_of(target, name)
            return name, "$"
        if "enum" in schema:
            return "Literal[" + ", ".join(json.dumps(v) for v in schema["enum"]) + "]", "$"
        if "const" in schema:
            return f"Literal[{json.dumps(schema['const'])}]", "$"
        for key in ("anyOf", "oneOf"):
            if key in schema:
                variants = schema[key]
                nullable = any(v.get("type") == "null" for v in variants)
                rest = [v for v in variants if v.get("type") != "null"]
                parts = [self.type_of(v, hint if len(rest) == 1 else f"{hint}{i + 1}") for i, v in enumerate(rest)]
                types: List[str] = []
                for t, _ in parts:
                    if t not in types:
                        types.append(t)
                inner = types[0] if len(types) == 1 else "Union[" + ", ".join(types) + "]"
                build = parts[0][1] if len(parts) == 1 else "$"
                if nullable:
                    return f"Optional[{inner}]", "$" if build == "$" else f"None if $ is None else {build}"
                return inner, build
        t = schema.get("type")
        if isinstance(t, list):
            nullable = "null" in t
            rest = [str(x) for x in cast(List[Any], t) if x != "null"]
            inner, build = self.type_of({**schema, "type": rest[0]}, hint) if len(rest) == 1 else ("Any", "$")
            if nullable:
                return f"Optional[{inner}]", "$" if build == "$" else f"None if $ is None else {build}"
            return inner, build
        simple = {"string": "str", "integer": "int", "number": "float", "boolean": "bool", "null": "None"}
        if t in simple:
            return simple[t], ("float($)" if t == "number" else "$")
        if t == "array":
            item, build = self.type_of(schema.get("items", {}), hint + "Item")
            if build == "$":
                return f"List[{item}]", "list($)"
            return f"List[{item}]", "[" + build.replace("$", "x") + " for x in $]"
        if t == "object" or "properties" in schema:
            props = schema.get("properties")
            if not props:
                extra = schema.get("additionalProperties")
                value = self.type_of(cast(Dict[str, Any], extra), hint + "Value")[0] if isinstance(extra, dict) else "Any"
                return f"Dict[str, {value}]", "dict($)"
            if not all(k.isidentifier() for k in props):
                return "Dict[str, Any]", "dict($)"
            self.model(hint, schema)
            return hint, f"{hint}($)"
        return "Any", "$"

    def model(self, name: str, schema: Dict[str, Any]) -> None:
        if name in self.emitted:
            return
        self.emitted.add(name)
        props: Dict[str, Any] = schema.get("properties", {})
        required = set(schema.get("required", []))
        fields: List[Field] = []
        for key, sub in props.items():
            t, build = self.type_of(sub, name + pascal(key))
            if key not in required and not t.startswith("Optional["):
                t = f"Optional[{t}]"
                if build != "$":
                    build = f"None if $ is None else {build}"
            fields.append(Field(key, t, key in required, str(sub.get("description", "")), build))
        doc = str(schema.get("description", "")).replace('"""', "'''") or f"`{name}` of the API."
        lines = [f"class {name}(ApiObject):", f'    """{doc}"""', "", "    __slots__ = ()",
                 "    _FIELDS: ClassVar[Tuple[str, ...]] = (" + "".join(json.dumps(snake(f.key)) + ", " for f in fields) + ")", ""]
        for f in fields:
            getter = f'self._data["{f.key}"]' if f.required else f'self._data.get("{f.key}")'
            lines += ["    @property", f"    def {snake(f.key)}(self) -> {f.type}:"]
            if f.doc:
                lines.append('        """' + f.doc.splitlines()[0].replace('"""', "'''").rstrip("\\") + '"""')
            if f.build == "$":
                lines.append(f"        return {getter}")
            elif f.build.count("$") == 1:
                lines.append(f"        return {f.build.replace('$', getter)}")
            else:
                lines += [f"        v = {getter}", f"        return {f.build.replace('$', 'v')}"]
            lines.append("")
        self.blocks.append("\n".join(lines).rstrip() + "\n")

    def run(self) -> str:
        schemas: Dict[str, Any] = self.doc["components"]["schemas"]
        aliases: List[str] = []
        for name in sorted(schemas):
            schema = schemas[name]
            if schema.get("type") == "object" or "properties" in schema:
                if name.endswith("Body") and name != "ErrorBody":
                    continue  # request bodies: the methods take keyword arguments
                if name == "ErrorBody":
                    continue
                self.type_of(schema, name)
            else:
                aliases.append(f"{name} = {self.type_of(schema, name)[0]}")
        ops: List[Tuple[str, str, str]] = []
        for path, item in self.doc["paths"].items():
            for method, op in item.items():
                op_id = op.get("operationId")
                if not op_id:
                    continue
                ops.append((op_id, method.upper(), path))
                for status, response in op.get("responses", {}).items():
                    content = response.get("content", {}).get("application/json")
                    if status.startswith("2") and content and "$ref" not in content.get("schema", {}):
                        self.type_of(content["schema"], pascal(op_id) + "Response")
        codes: List[str] = schemas["ErrorBody"]["properties"]["code"]["enum"]
        missing = [c for c in codes if c not in self.statuses]
        if missing:
            raise SystemExit(f"no status in {CATALOGUE} for {missing}")
        classes = {c: FAMILY_CODES.get(c) or error_class(c) for c in codes}
        families = sorted({family(self.statuses[c]) for c in codes} | set(FAMILY_CODES.values()))
        error_blocks: List[str] = []
        for c in codes:
            if c in FAMILY_CODES:
                continue
            error_blocks.append(
                f"class {classes[c]}({family(self.statuses[c])}):\n    \"\"\"{self.statuses[c]} `{c}`.\"\"\"\n\n"
            )
        out = [
            '"""Types generated from openapi/openapi.json by python/scripts/generate_types.py.',
            "",
            "Do not edit: run `npm run generate:sdk` after the API changes (a test fails on drift). Every",
            "object schema of the API is a read-only class with snake_case attributes (``to_dict()`` gives",
            "the API's own JSON back); every code of the error catalogue an exception class under its",
            "status family.",
            '"""',
            "# fmt: off",
            "from __future__ import annotations",
            "",
            "from typing import Any, ClassVar, Dict, List, Literal, Optional, Tuple, Type, Union",
            "",
            "from ._exceptions import " + ", ".join(f for f in families) + (", ApiError" if "ApiError" not in families else ""),
            "from ._object import ApiObject",
            "",
            "__all__ = [" + ", ".join(json.dumps(n) for n in ["API_VERSION", "ERROR_CLASSES", "ERROR_CLASS_NAMES", "ERROR_CODES", "ERROR_STATUSES", "ErrorCode", "OPERATIONS"] + [a.split(" = ")[0] for a in aliases] + sorted(self.emitted) + [classes[c] for c in codes if c not in FAMILY_CODES]) + "]",
            "",
            "#: The error classes of the catalogue's codes, re-exported by the vesta package.",
            "ERROR_CLASS_NAMES = (" + "".join(json.dumps(classes[c]) + ", " for c in codes) + ")",
            "",
            f"API_VERSION = {json.dumps(self.doc['info'].get('version', ''))}",
            "",
            "#: Every error code of the server's catalogue (ErrorBody.code).",
            "ErrorCode = Literal[" + ", ".join(json.dumps(c) for c in codes) + "]",
            "ERROR_CODES: Tuple[str, ...] = (" + "".join(json.dumps(c) + ", " for c in codes) + ")",
            "#: The HTTP status of each code (packages/server/src/errors.ts).",
            "ERROR_STATUSES: Dict[str, int] = {" + ", ".join(f"{json.dumps(c)}: {self.statuses[c]}" for c in codes) + "}",
            "",
            "#: operationId -> (HTTP method, path) of every operation.",
            "OPERATIONS: Dict[str, Tuple[str, str]] = {",
            *[f"    {json.dumps(i)}: ({json.dumps(m)}, {json.dumps(p)})," for i, m, p in sorted(ops)],
            "}",
            "",
            *aliases,
            "",
            "",
            "\n\n".join(self.blocks),
            "",
            "# One exception class per code of the catalogue, under its status family; a code this release",
            "# does not know becomes its family's class (vesta._exceptions.family_of).",
            *error_blocks,
            "ERROR_CLASSES: Dict[str, Type[ApiError]] = {",
            *[f"    {json.dumps(c)}: {classes[c]}," for c in codes],
            "}",
        ]
        return "\n".join(out).rstrip() + "\n"


def main(argv: List[str]) -> int:
    with open(DOC, encoding="utf-8") as f:
        doc = json.load(f)
    text = Generator(doc, read_statuses()).run()
    if "--check" in argv:
        with open(TARGET, encoding="utf-8") as f:
            if f.read() != text:
                print(f"{TARGET} is stale: run `npm run generate:sdk`", file=sys.stderr)
                return 1
        return 0
    with open(TARGET, "w", encoding="utf-8") as f:
        f.write(text)
    print(f"wrote {TARGET}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
