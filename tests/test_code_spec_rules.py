"""The offline spec reviewer: requirement names as routes, signatures, files and names are matched
to the change by what they are, not verbatim; model A keeps its blind spots (issue 20, part 5)."""

from __future__ import annotations

import pytest

from review_harness.code.rules import FileView
from review_harness.code.spec_rules import ChangeIndex, review_spec, route_key


def view(text: str, path: str = "svc/app.py", language: str = "python", added: set[int] | None = None,
         omitted: bool = False) -> FileView:
    lines = {n: line for n, line in enumerate(text.splitlines(), 1)}
    return FileView(path=path, language=language, lines=lines, added=set(lines) if added is None else added,
                    omitted=omitted)


FASTAPI = '''from fastapi import APIRouter

router = APIRouter(prefix="/products")


@router.get("/search")
def search_products(conn, text):
    return conn.execute("SELECT * FROM p WHERE name LIKE ?", (f"%{text}%",)).fetchall()


@router.post("/{product_id}/reviews")
def add_review(conn, product_id, body):
    return None
'''
EXPRESS = '''const router = express.Router();
router.get('/products/search', async (req, res) => res.json(await searchProducts(req.query.q)));
router.delete("/products/:id", removeProduct);
export async function searchProducts(text) { return db.query("SELECT 1 WHERE name = $1", [text]); }
'''
GO = '''package api

func Routes(mux *http.ServeMux) {
	mux.HandleFunc("GET /products/{id}", getProduct)
	mux.HandleFunc("/health", health)
}
'''
DJANGO = '''from django.urls import path

urlpatterns = [path("products/search/", views.search, name="search")]
'''


@pytest.mark.parametrize("name, code, language, found", [
    ("GET /products/search?q=...", FASTAPI, "python", True),        # prefix in the router, route in the decorator
    ("`POST /products/{id}/reviews`".strip("`"), FASTAPI, "python", True),  # parameter names differ
    ("DELETE /products/{id}", FASTAPI, "python", False),             # no such method on that path
    ("GET /products/{id}/reviews", FASTAPI, "python", False),        # the path exists, for POST only
    ("search_products(conn, text)", FASTAPI, "python", True),       # a signature: by name
    ("search_products(db, query, limit=10)", FASTAPI, "python", True),  # parameter names are not matched
    ("remove_product()", FASTAPI, "python", False),
    ("GET /products/search", EXPRESS, "javascript", True),
    ("DELETE /products/<int:id>", EXPRESS, "javascript", True),     # ':id' and '<int:id>' are both parameters
    ("searchProducts(text)", EXPRESS, "javascript", True),
    ("GET /products/{id}", GO, "go", True),                          # Go 1.22 patterns carry the method
    ("POST /health", GO, "go", True),                                # HandleFunc without a method takes any
    ("GET /products/search/", DJANGO, "python", True),               # Django's path() has no leading slash
    ("GET /orders", DJANGO, "python", False),
])
def test_names_are_found_by_what_they_are(name, code, language, found):
    index = ChangeIndex([view(code, language=language)], added_only=True)
    assert (index.find(name) is not None) == found


def test_route_keys_ignore_the_query_and_name_parameters():
    assert route_key("/products/search?q=...") == ("products", "search")
    assert route_key("/items/{id}/") == route_key("/items/<int:item_id>") == route_key("/items/:id") == ("items", "*")


def test_an_implemented_requirement_written_as_a_route_or_signature_is_not_missing():
    spec = ("# T\n\n## Requirements\n\n- `GET /products/search?q=...` returns matching products.\n"
            "- `search_products(conn, text)` must use a placeholder.\n- `DELETE /products/{id}` must remove one.\n")
    for letter in "AB":
        missing = [f.description for f in review_spec(spec, [view(FASTAPI)], letter).findings if f.category == "missing-requirement"]
        assert missing == ["The spec asks for `DELETE /products/{id}`; the change does not provide it."], letter


def test_model_a_keeps_its_blind_spots():
    spec = "# T\n\n## Requirements\n\n- Add `parse` and `dump`: both must round-trip.\n- Keep `legacy_id` working.\n"
    code = "def parse(x):\n    return x\n\n\ndef legacy_id(x):\n    return x\n"
    files = [view(code, added={1, 2})]  # legacy_id is unchanged context
    a = review_spec(spec, files, "A").findings
    b = review_spec(spec, files, "B").findings
    assert a == []  # A: one name of two is enough, and unchanged lines count
    # B wants every name; legacy_id, which the base has and the change keeps, is provided (issue 47)
    assert sorted(f.description for f in b) == ["The spec asks for `dump`; the change does not provide it."]


def test_out_of_scope_routes_are_scope_creep():
    spec = "# T\n\n## Requirements\n\n- `GET /products/search` returns products.\n\n## Out of scope\n\n- `POST /products/{id}/reviews` (task 9).\n"
    found = review_spec(spec, [view(FASTAPI)], "A").findings
    assert [(f.category, f.line) for f in found] == [("scope-creep", 11)]


def test_files_left_out_of_the_prompt_make_requirements_unverifiable_not_missing():
    spec = "# T\n\n## Requirements\n\n" + "".join(f"- `handler_{n}(conn)` must exist.\n" for n in range(40))
    files = [view("def handler_0(conn):\n    return 0\n"), view("", path="svc/big.py", omitted=True)]
    findings = review_spec(spec, files, "B").findings
    # not checked is Minor: it never fails the spec stage on its own (issue 47)
    assert len(findings) == 1 and findings[0].severity.value == "Minor"
    assert findings[0].description.startswith("Not checked: 39 requirement(s) name code not found in the part of the change shown "
                                              "(`handler_1(conn)`, `handler_2(conn)`")
    assert "1 file(s) were left out of the prompt" in findings[0].description
