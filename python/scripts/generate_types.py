"""Writes vesta/_generated.py from openapi/openapi.json (run by `npm run generate:sdk`).

Every named schema of `components.schemas` becomes a TypedDict (or a Literal / alias), the error
catalogue (`ErrorBody.code`) becomes `ErrorCode` and `ERROR_CODES`, and every operation is listed
in `OPERATIONS` (operationId -> method, path). A test regenerates this file and fails on any diff.

    python3 python/scripts/generate_types.py [--check]
"""
from __future__ import annotations

import json
import keyword
import os
import re
import sys
from typing import Any, Dict, List, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
DOC = os.path.join(REPO, "openapi", "openapi.json")
TARGET = os.path.join(os.path.dirname(HERE), "vesta", "_generated.py")
PREFIX = "#/components/schemas/"


def pascal(text: str) -> str:
    parts = re.split(r"[^A-Za-z0-9]+|_", text)
    return "".join(p[:1].upper() + p[1:] for p in parts if p)


def error_class(code: str) -> str:
    """`validation_failed` -> ValidationFailedError, `internal_error` -> InternalError (as in TypeScript)."""
    name = pascal(code.lower())
    return name if name.endswith("Error") else name + "Error"


class Generator:
    def __init__(self, doc: Dict[str, Any]) -> None:
        self.doc = doc
        self.blocks: List[str] = []
        self.emitted: set = set()

    def type_of(self, schema: Dict[str, Any], hint: str) -> str:
        if "$ref" in schema:
            return schema["$ref"][len(PREFIX):]
        if "enum" in schema:
            return "Literal[" + ", ".join(json.dumps(v) for v in schema["enum"]) + "]"
        if "const" in schema:
            return f"Literal[{json.dumps(schema['const'])}]"
        for key in ("anyOf", "oneOf"):
            if key in schema:
                variants = schema[key]
                nullable = any(v.get("type") == "null" for v in variants)
                rest = [v for v in variants if v.get("type") != "null"]
                types: List[str] = []
                for i, v in enumerate(rest):
                    t = self.type_of(v, hint if len(rest) == 1 else f"{hint}{i + 1}")
                    if t not in types:
                        types.append(t)
                inner = types[0] if len(types) == 1 else "Union[" + ", ".join(types) + "]"
                return f"Optional[{inner}]" if nullable else inner
        t = schema.get("type")
        if isinstance(t, list):
            nullable = "null" in t
            rest = [x for x in t if x != "null"]
            inner = self.type_of({**schema, "type": rest[0]}, hint) if len(rest) == 1 else "Any"
            return f"Optional[{inner}]" if nullable else inner
        if t == "string":
            return "str"
        if t == "integer":
            return "int"
        if t == "number":
            return "float"
        if t == "boolean":
            return "bool"
        if t == "null":
            return "None"
        if t == "array":
            return f"List[{self.type_of(schema.get('items', {}), hint + 'Item')}]"
        if t == "object" or "properties" in schema:
            props = schema.get("properties")
            if not props:
                extra = schema.get("additionalProperties")
                value = self.type_of(extra, hint + "Value") if isinstance(extra, dict) else "Any"
                return f"Dict[str, {value}]"
            if not all(k.isidentifier() and not keyword.iskeyword(k) for k in props):
                return "Dict[str, Any]"
            self.typed_dict(hint, schema)
            return hint
        return "Any"

    def typed_dict(self, name: str, schema: Dict[str, Any]) -> None:
        if name in self.emitted:
            return
        self.emitted.add(name)
        props: Dict[str, Any] = schema.get("properties", {})
        required = set(schema.get("required", []))
        fields: List[Tuple[str, str, bool, str]] = []
        for key, sub in props.items():
            t = self.type_of(sub, name + pascal(key))
            fields.append((key, t, key in required, str(sub.get("description", ""))))
        doc = str(schema.get("description", "")).replace('"""', "'''")
        req = [f for f in fields if f[2]]
        opt = [f for f in fields if not f[2]]

        def body(fs: List[Tuple[str, str, bool, str]]) -> str:
            lines = []
            for key, t, _, d in fs:
                if d:
                    lines.append(f"    #: {d.splitlines()[0]}")
                lines.append(f"    {key}: {t}")
            return "\n".join(lines) if lines else "    pass"

        head = f'    """{doc}"""\n' if doc else ""
        if req and opt:
            block = (
                f"class _{name}Required(TypedDict):\n{body(req)}\n\n\n"
                f"class {name}(_{name}Required, total=False):\n{head}{body(opt)}\n"
            )
        elif opt:
            block = f"class {name}(TypedDict, total=False):\n{head}{body(opt)}\n"
        else:
            block = f"class {name}(TypedDict):\n{head}{body(req)}\n"
        self.blocks.append(block)

    def run(self) -> str:
        schemas: Dict[str, Any] = self.doc["components"]["schemas"]
        aliases: List[str] = []
        for name in sorted(schemas):
            schema = schemas[name]
            if schema.get("type") == "object" or "properties" in schema:
                self.type_of(schema, name)
            else:
                aliases.append(f"{name} = {self.type_of(schema, name)}")
        ops: List[Tuple[str, str, str]] = []
        for path, item in self.doc["paths"].items():
            for method, op in item.items():
                op_id = op.get("operationId")
                if not op_id:
                    continue
                ops.append((op_id, method.upper(), path))
                for status, response in op.get("responses", {}).items():
                    if not status.startswith("2"):
                        continue
                    content = response.get("content", {}).get("application/json")
                    if content and "$ref" not in content.get("schema", {}):
                        self.type_of(content["schema"], pascal(op_id) + "Response")
        codes = schemas["ErrorBody"]["properties"]["code"]["enum"]
        out = [
            '"""Types generated from openapi/openapi.json by python/scripts/generate_types.py.',
            "",
            "Do not edit: run `npm run generate:sdk` after the API changes (a test fails on drift).",
            '"""',
            "# fmt: off",
            "from __future__ import annotations",
            "",
            "from typing import Any, Dict, List, Literal, Optional, Tuple, Type, TypedDict, Union",
            "",
            "from ._exceptions import ApiError",
            "",
            "#: The error classes, re-exported by the vesta package.",
            "__all__ = [" + ", ".join(json.dumps(error_class(c)) for c in codes) + "]",
            "",
            f"API_VERSION = {json.dumps(self.doc['info'].get('version', ''))}",
            "",
            "#: Every error code of the server's catalogue (ErrorBody.code).",
            "ErrorCode = Literal[" + ", ".join(json.dumps(c) for c in codes) + "]",
            "ERROR_CODES: Tuple[str, ...] = (" + "".join(json.dumps(c) + ", " for c in codes) + ")",
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
            "# One exception class per code of the catalogue; ApiError for a code this release does not know.",
            *[f"class {error_class(c)}(ApiError):\n    \"\"\"`{c}`.\"\"\"\n\n" for c in codes],
            "ERROR_CLASSES: Dict[str, Type[ApiError]] = {",
            *[f"    {json.dumps(c)}: {error_class(c)}," for c in codes],
            "}",
        ]
        text = "\n".join(out).rstrip() + "\n"
        return text


def main(argv: List[str]) -> int:
    with open(DOC, encoding="utf-8") as f:
        doc = json.load(f)
    text = Generator(doc).run()
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
