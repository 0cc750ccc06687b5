"""Response schemas that both Anthropic's structured outputs and OpenAI's strict mode accept.

Under constrained decoding a model is held to the schema, not to our parser, so the schema
must say everything the parser needs: every key required (nullable where optional), objects
closed, categorical fields as enums. Bounds (string length, numeric range, array size) are
refused by at least one provider, so they are stripped here and checked after parsing.

    schema = response_schema("reviewer_report", ReviewerReport,
                             enums={"findings[].lens": ["methodology", "logic"]})
    problems = schema_problems(json_schema_dump(schema.json_schema))   # [] when sendable
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from inspect_ai.model import ResponseSchema
from inspect_ai.util import JSONSchema, json_schema

from review_harness.core.inspect_adapter import json_schema_dump

# keywords either provider refuses in a response schema (checked after parsing instead)
STRIPPED_KEYWORDS = ("minLength", "maxLength", "minimum", "maximum", "pattern", "examples", "default")
REFUSED_KEYWORDS = (
    "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
    "minLength", "maxLength", "maxItems", "minProperties", "maxProperties",
    "uniqueItems", "patternProperties", "propertyNames", "contains",
)


def response_schema(
    name: str,
    model: type,
    *,
    description: str | None = None,
    enums: dict[str, list[Any]] | None = None,
) -> ResponseSchema:
    """The strict schema of a pydantic model. `enums` narrows string fields by path:
    ``"field"``, ``"list_field[].field"``, ``"object.field"`` (``[]`` steps into an array).
    Built once per process for the same arguments (a kind asks for it at every model call): the
    schema is shared, so it is never changed after it is made."""
    frozen = tuple((path, tuple(values)) for path, values in (enums or {}).items())
    return _response_schema(name, model, description, frozen)


@lru_cache(maxsize=256)
def _response_schema(name: str, model: type, description: str | None,
                     enums: tuple[tuple[str, tuple[Any, ...]], ...]) -> ResponseSchema:
    schema = json_schema(model).model_copy(deep=True)
    _make_strict(schema)
    for path, values in enums:
        _set_enum(schema, path, list(values), name)
    return ResponseSchema(name=name, json_schema=schema, description=description, strict=True)


def schema_dict(schema: ResponseSchema) -> dict[str, Any]:
    """The schema as it is sent (what the providers serialise)."""
    return json_schema_dump(schema.json_schema)


def _make_strict(node: JSONSchema) -> None:
    for key in STRIPPED_KEYWORDS:
        setattr(node, key, None)
    if node.properties is not None:
        node.required = list(node.properties)
        node.additionalProperties = False
        for child in node.properties.values():
            _make_strict(child)
    if node.items is not None:
        _make_strict(node.items)
    for option in node.anyOf or []:
        _make_strict(option)


def _set_enum(node: JSONSchema, path: str, values: list[Any], name: str) -> None:
    target = node
    for step in path.split("."):
        into_array = step.endswith("[]")
        key = step[:-2] if into_array else step
        target = _nonnull(target)
        if target.properties is None or key not in target.properties:
            raise KeyError(f"response schema {name!r}: no field {key!r} on the path {path!r}")
        target = target.properties[key]
        if into_array:
            target = _nonnull(target)
            if target.items is None:
                raise KeyError(f"response schema {name!r}: {key!r} on the path {path!r} is not an array")
            target = target.items
    # on a nullable field the enum goes on the non-null branch: null stays allowed
    _nonnull(target).enum = values


def _nonnull(node: JSONSchema) -> JSONSchema:
    """The non-null branch of a nullable field (``anyOf: [X, null]``), else the node itself."""
    if node.anyOf:
        options = [o for o in node.anyOf if o.type != "null"]
        if len(options) == 1:
            return options[0]
    return node


def schema_problems(schema: dict[str, Any], where: str = "$") -> list[str]:
    """What Anthropic's structured outputs or OpenAI's strict mode would refuse, by location."""
    problems: list[str] = []
    for key in REFUSED_KEYWORDS:
        if key in schema:
            problems.append(f"{where}: keyword {key!r} is refused by a provider")
    if schema.get("minItems", 0) > 1:
        problems.append(f"{where}: minItems above 1 is refused by Anthropic")
    if "$ref" in schema and len(schema) > 1:
        problems.append(f"{where}: $ref with sibling keywords")
    properties = schema.get("properties")
    is_object = schema.get("type") == "object" or properties is not None
    if is_object:
        if schema.get("additionalProperties") is not False:
            problems.append(f"{where}: object is open (additionalProperties must be false)")
        missing = sorted(set(properties or {}) - set(schema.get("required") or []))
        if missing:
            problems.append(f"{where}: keys missing from required: {missing}")
    for key, child in (properties or {}).items():
        problems += schema_problems(child, f"{where}.{key}")
    if isinstance(schema.get("items"), dict):
        problems += schema_problems(schema["items"], f"{where}[]")
    for i, option in enumerate(schema.get("anyOf") or []):
        problems += schema_problems(option, f"{where}|{i}")
    for key, child in (schema.get("$defs") or {}).items():
        problems += schema_problems(child, f"$defs.{key}")
    return problems
