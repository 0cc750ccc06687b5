"""The small expression language of operator tables: a precondition (`lo <= est <= hi`) or a
new value (`est + uniform(0.3, 0.8) * (hi - lo)`) over the numbers an operator found.

Numbers, names, lists, + - * / // % **, comparisons (chained), and / or / not, `a if c else b`,
and the functions below. `uniform(a, b)` and `choice([...])` draw from the mutation's own seeded
random generator, so the same seed gives the same value. Anything else is an `ExpressionError`
naming the expression, raised when the table is read; so is a value too large to compute (an
integer over 2**1024, `9 ** 9 ** 9`, or a repetition of over 10,000 items), refused before it is
computed.
"""

from __future__ import annotations

import ast
import math
import operator
import random
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from review_harness.core.pysource import parse_python


class ExpressionError(ValueError):
    """An expression the table language does not allow, or one that cannot be evaluated."""


_BIN = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
        ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow}
_CMP = {ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge,
        ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b}
_FUNCTIONS: dict[str, Any] = {
    "abs": abs, "min": min, "max": max, "round": round, "sqrt": math.sqrt, "floor": math.floor,
    "ceil": math.ceil, "log10": math.log10, "int": int, "float": float, "len": len,
}
_DRAWS = ("uniform", "choice", "randint")
_ALLOWED = (ast.Expression, ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.Compare, ast.IfExp, ast.Call, ast.Name,
            ast.Constant, ast.List, ast.Tuple, ast.Load, ast.And, ast.Or, ast.Not, ast.USub, ast.UAdd,
            *_BIN, *_CMP)


@lru_cache(maxsize=512)
def compile_expression(text: str) -> ast.Expression:
    """The checked syntax tree of `text` (cached: tables are read once, evaluated often)."""
    try:
        tree = parse_python(text.strip(), mode="eval")
    except SyntaxError:
        raise ExpressionError(f"expression {text!r}: not an expression") from None
    for node in ast.walk(tree):
        if not isinstance(node, _ALLOWED):
            raise ExpressionError(f"expression {text!r}: {type(node).__name__} is not allowed")
        if isinstance(node, ast.Call):
            if not isinstance(node.func, ast.Name) or node.func.id not in (*_FUNCTIONS, *_DRAWS):
                raise ExpressionError(f"expression {text!r}: only the functions "
                                      f"{', '.join((*_FUNCTIONS, *_DRAWS))} may be called")
            if node.keywords:
                raise ExpressionError(f"expression {text!r}: no keyword arguments")
    return tree


def names_in(text: str) -> set[str]:
    """The variable names an expression reads (function names left out)."""
    tree = compile_expression(text)
    called = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and id(n) not in called}


def evaluate(text: str, values: Mapping[str, Any], rng: random.Random | None = None) -> Any:
    """The value of `text` with `values` for its names; random draws from `rng`."""
    tree = compile_expression(text)
    draws = {"uniform": (rng or random.Random(0)).uniform, "choice": (rng or random.Random(0)).choice,
             "randint": (rng or random.Random(0)).randint}
    try:
        return _eval(tree.body, values, draws)
    except KeyError as ex:
        raise ExpressionError(f"expression {text!r}: no value for {ex.args[0]}") from None
    except (ArithmeticError, TypeError, ValueError, IndexError) as ex:
        raise ExpressionError(f"expression {text!r}: {ex}") from None


MAX_BITS = 1024  # an integer a table computes stays below 2**1024 (a float's range)
MAX_ITEMS = 10_000  # a string or list a table builds by repetition


def _bounded(op: type, left: Any, right: Any) -> Any:
    """left op right, refused before it is computed when the result would be an integer of more
    than MAX_BITS bits (`9 ** 9 ** 9`) or a sequence of more than MAX_ITEMS items."""
    ints = isinstance(left, int) and isinstance(right, int)
    if op is ast.Pow and ints and right > 0 and abs(left) > 1 and right * (abs(left).bit_length() - 1) > MAX_BITS:
        raise ValueError(f"the power is over 2**{MAX_BITS}")
    if op is ast.Mult and ints and left.bit_length() + right.bit_length() > MAX_BITS + 1:
        raise ValueError(f"the product is over 2**{MAX_BITS}")
    if op is ast.Mult and (isinstance(left, (str, list)) or isinstance(right, (str, list))):
        count, items = (right, left) if isinstance(left, (str, list)) else (left, right)
        if isinstance(count, int) and count * len(items) > MAX_ITEMS:
            raise ValueError(f"the repetition is over {MAX_ITEMS} items")
    result = _BIN[op](left, right)
    if isinstance(result, int) and result.bit_length() > MAX_BITS:
        raise ValueError(f"the value is over 2**{MAX_BITS}")
    return result


def _eval(node: ast.AST, values: Mapping[str, Any], draws: Mapping[str, Any]) -> Any:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        if node.id in values:
            return values[node.id]
        raise KeyError(node.id)
    if isinstance(node, (ast.List, ast.Tuple)):
        return [_eval(e, values, draws) for e in node.elts]
    if isinstance(node, ast.UnaryOp):
        operand = _eval(node.operand, values, draws)
        if isinstance(node.op, ast.Not):
            return not operand
        return -operand if isinstance(node.op, ast.USub) else +operand
    if isinstance(node, ast.BinOp):
        return _bounded(type(node.op), _eval(node.left, values, draws), _eval(node.right, values, draws))
    if isinstance(node, ast.BoolOp):
        if isinstance(node.op, ast.And):
            return all(_eval(v, values, draws) for v in node.values)
        return any(_eval(v, values, draws) for v in node.values)
    if isinstance(node, ast.Compare):
        left = _eval(node.left, values, draws)
        for op, comparator in zip(node.ops, node.comparators):
            right = _eval(comparator, values, draws)
            if not _CMP[type(op)](left, right):
                return False
            left = right
        return True
    if isinstance(node, ast.IfExp):
        branch = node.body if _eval(node.test, values, draws) else node.orelse
        return _eval(branch, values, draws)
    assert isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
    args = [_eval(a, values, draws) for a in node.args]
    function = draws.get(node.func.id) or _FUNCTIONS[node.func.id]
    return function(*args)
