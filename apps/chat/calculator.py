"""Arithmetic for the agent's `calculator` tool: an AST walk over an allow-list, never eval.

Names, attributes, calls, subscripts and anything else outside plain arithmetic are refused,
and exponents and result sizes are bounded so `9**9**9` cannot eat the CPU.
"""

import ast
import math
import operator

MAX_EXPRESSION = 200
MAX_EXPONENT = 1000
MAX_MAGNITUDE = 1e300

BINARY = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
UNARY = {ast.UAdd: operator.pos, ast.USub: operator.neg}


class CalculatorError(ValueError):
    pass


def calculate(expression: str) -> int | float:
    if not isinstance(expression, str) or not expression.strip():
        raise CalculatorError("give an arithmetic expression, e.g. 2 * (3 + 4)")
    if len(expression) > MAX_EXPRESSION:
        raise CalculatorError(f"expressions are limited to {MAX_EXPRESSION} characters")
    expression = expression.replace("^", "**").replace("×", "*").replace("÷", "/")
    try:
        tree = ast.parse(expression.strip(), mode="eval")
    except SyntaxError as error:
        raise CalculatorError("not an arithmetic expression") from error
    return _evaluate(tree.body)


def _evaluate(node: ast.AST) -> int | float:
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return node.value
    if isinstance(node, ast.UnaryOp) and type(node.op) in UNARY:
        return UNARY[type(node.op)](_evaluate(node.operand))
    if isinstance(node, ast.BinOp) and type(node.op) in BINARY:
        left, right = _evaluate(node.left), _evaluate(node.right)
        if isinstance(node.op, ast.Pow):
            _check_power(left, right)
        try:
            result = BINARY[type(node.op)](left, right)
        except ZeroDivisionError as error:
            raise CalculatorError("division by zero") from error
        except OverflowError as error:
            raise CalculatorError("the result is too large") from error
        return _checked(result)
    raise CalculatorError(f"only numbers and + - * / // % ** are allowed, not {_describe(node)}")


def _check_power(base: int | float, exponent: int | float) -> None:
    if abs(exponent) > MAX_EXPONENT:
        raise CalculatorError(f"exponents are limited to ±{MAX_EXPONENT}")
    if base != 0 and abs(exponent) * math.log10(abs(base)) > 300:
        raise CalculatorError("the result is too large")


def _checked(value: int | float | complex) -> int | float:
    if isinstance(value, complex):
        raise CalculatorError("the result is not a real number")
    if isinstance(value, float) and not math.isfinite(value):
        raise CalculatorError("the result is not a finite number")
    if abs(value) > MAX_MAGNITUDE:
        raise CalculatorError("the result is too large")
    return value


def _describe(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return f"the name {node.id!r}"
    if isinstance(node, ast.Attribute):
        return "attributes"
    if isinstance(node, ast.Call):
        return "function calls"
    return type(node).__name__.lower()
