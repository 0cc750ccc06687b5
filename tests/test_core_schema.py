"""The core response-schema builder: strict, closed, bound-free, enums by path."""

import pytest
from pydantic import BaseModel, Field

from review_harness.core.schema import response_schema, schema_dict, schema_problems


class Item(BaseModel):
    lens: str
    note: str | None = None
    weight: float = Field(default=1.0, ge=0, le=1)


class Answer(BaseModel):
    title: str = Field(min_length=3, max_length=80)
    items: list[Item] = []
    main: Item | None = None


def test_schema_is_strict_closed_and_bound_free():
    schema = response_schema("answer", Answer)
    assert schema.strict is True
    sent = schema_dict(schema)
    assert schema_problems(sent) == []
    assert sent["required"] == ["title", "items", "main"]
    assert sent["additionalProperties"] is False
    item = sent["properties"]["items"]["items"]
    assert item["required"] == ["lens", "note", "weight"]
    assert "minimum" not in item["properties"]["weight"]
    assert "minLength" not in sent["properties"]["title"]


def test_enums_narrow_fields_by_path_and_keep_null_allowed():
    schema = response_schema(
        "answer", Answer, enums={"items[].lens": ["a", "b"], "main.lens": ["c"], "main.note": ["x"]}
    )
    sent = schema_dict(schema)
    assert sent["properties"]["items"]["items"]["properties"]["lens"]["enum"] == ["a", "b"]
    main = [o for o in sent["properties"]["main"]["anyOf"] if o.get("type") != "null"][0]
    assert main["properties"]["lens"]["enum"] == ["c"]
    note = main["properties"]["note"]["anyOf"]
    assert {"type": "null"} in note and any(o.get("enum") == ["x"] for o in note)


def test_bad_enum_path_names_the_field():
    with pytest.raises(KeyError, match="no field 'nope'"):
        response_schema("answer", Answer, enums={"items[].nope": ["a"]})
    with pytest.raises(KeyError, match="not an array"):
        response_schema("answer", Answer, enums={"title[].x": ["a"]})


def test_problems_name_what_providers_refuse():
    raw = {
        "type": "object",
        "properties": {
            "n": {"type": "integer", "minimum": 0},
            "xs": {"type": "array", "items": {"type": "string"}, "minItems": 2},
            "o": {"type": "object", "properties": {"k": {"type": "string"}}},
        },
        "required": ["n"],
    }
    problems = schema_problems(raw)
    assert "$.n: keyword 'minimum' is refused by a provider" in problems
    assert "$.xs: minItems above 1 is refused by Anthropic" in problems
    assert "$.o: object is open (additionalProperties must be false)" in problems
    assert "$: keys missing from required: ['o', 'xs']" in problems
    assert "$: object is open (additionalProperties must be false)" in problems


def all_project_schemas():
    """Every response schema the project sends: module-level schemas of every solver, scorer
    and kind module, plus the schemas built per member."""
    import importlib
    import pkgutil

    from inspect_ai.model import ResponseSchema

    import review_harness
    from review_harness.core.paths import PROJECT_ROOT
    from review_harness.ds.rubric import default_rubric
    from review_harness.ds.schemas import reviewer_schema

    names = [m.name for m in pkgutil.walk_packages(review_harness.__path__, "review_harness.")]
    for folder in ("solvers", "scorers"):
        names += [f"{folder}.{p.stem}" for p in sorted((PROJECT_ROOT / folder).glob("*.py")) if p.stem != "__init__"]
    found = {}
    for name in names:
        module = importlib.import_module(name)
        for attr, value in vars(module).items():
            if isinstance(value, ResponseSchema):
                found[f"{name}.{attr}"] = value
    rubric = default_rubric()
    for dim_id in rubric.dimensions:
        found[f"ds reviewer {dim_id}"] = reviewer_schema(rubric.dimension(dim_id))
    from review_harness.domain.prompt import report_schema
    from review_harness.domain.reviewer import default_reviewer_rubric
    from review_harness.impact.parse import answer_schema

    found["domain reviewer"] = report_schema(default_reviewer_rubric())
    found["impact reviewer"] = answer_schema(["estimate_plausibility", "statistical_rigor", "methodology_fit"])
    return found


def test_every_schema_the_project_sends_is_accepted_by_both_providers():
    schemas = all_project_schemas()
    assert {"solvers.design_panel.PERSONA_SCHEMA", "scorers.ds_judge.JUDGE_SCHEMA", "ds reviewer analysis",
            "solvers.code_panel.REVIEWER_SCHEMA", "solvers.code_panel.MATCH_SCHEMA", "impact reviewer",
            "domain reviewer"} <= set(schemas)
    for name, schema in schemas.items():
        assert schema.strict is True, name
        assert schema_problems(schema_dict(schema)) == [], name


def test_ds_reviewer_schema_holds_the_model_to_its_rubric():
    from review_harness.ds.rubric import default_rubric
    from review_harness.ds.schemas import reviewer_schema

    rubric = default_rubric()
    analysis = rubric.dimension("analysis")
    sent = schema_dict(reviewer_schema(analysis))
    finding = sent["properties"]["findings"]["items"]["properties"]
    assert finding["lens"]["enum"] == [lens.id for lens in analysis.lenses]
    issue_types = [o for o in finding["issue_type"]["anyOf"] if o.get("type") != "null"][0]["enum"]
    assert issue_types == [rule.id for lens in analysis.lenses for rule in lens.deductions]
    assert sent["properties"]["dimension"]["enum"] == ["analysis"]
    assert set(sent["required"]) == {"dimension", "lens_ratings", "findings", "positives", "score"}
