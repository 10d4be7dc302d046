"""The code stays small enough to read: no module in apps/ over 400 lines (migrations are
generated and excepted), and no function or method in apps/ or cognivault_site/ over 60 lines,
counted from its `def` line to its last line, decorators left out."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAX_FILE_LINES = 400
MAX_FUNCTION_LINES = 60


def sources(*folders: str) -> list[Path]:
    return sorted(
        path
        for folder in folders
        for path in (ROOT / folder).rglob("*.py")
        if "migrations" not in path.relative_to(ROOT).parts
    )


def function_lengths(source: Path) -> list[tuple[str, int, int]]:
    """(name, line of its def, length in lines) of every function and method in the file."""
    tree = ast.parse(source.read_text(), filename=str(source))
    return [
        (node.name, node.lineno, node.end_lineno - node.lineno + 1)
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    ]


def test_function_lengths_leave_the_decorators_out(tmp_path):
    module = tmp_path / "module.py"
    module.write_text(
        "@decorator\n@another\ndef f():\n    return 1\n\n\n"
        "class C:\n    def m(self):\n        pass\n"
    )
    assert function_lengths(module) == [("f", 3, 2), ("m", 8, 2)]


def test_no_module_in_apps_is_over_400_lines():
    long = [
        f"{path.relative_to(ROOT)}: {lines} lines"
        for path in sources("apps")
        if (lines := len(path.read_text().splitlines())) > MAX_FILE_LINES
    ]
    assert len(sources("apps")) > 100
    assert not long, f"over {MAX_FILE_LINES} lines, split by responsibility: {long}"


def test_no_function_is_over_60_lines():
    long = [
        f"{path.relative_to(ROOT)}:{line} {name}: {length} lines"
        for path in sources("apps", "cognivault_site")
        for name, line, length in function_lengths(path)
        if length > MAX_FUNCTION_LINES
    ]
    assert not long, f"over {MAX_FUNCTION_LINES} lines, split into named steps: {long}"
