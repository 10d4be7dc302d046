"""Where test code lives: fixtures in conftest.py files, which pytest finds on its own; what
tests import (factories, constants, clients, running services) in tests/helpers/ or an app's
tests/helpers.py."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ("apps", "bench", "cognivault_site", "tests")


def python_files() -> list[Path]:
    return sorted(path for folder in SOURCES for path in (ROOT / folder).rglob("*.py"))


def conftest_imports(source: str) -> list[int]:
    """The lines of `source` that import a conftest module or something from one."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            module = node.module or ""
            names = [module, *(f"{module}.{alias.name}" for alias in node.names)]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            continue
        if any(name.rsplit(".", 1)[-1] == "conftest" for name in names):
            lines.append(node.lineno)
    return lines


def test_no_module_imports_from_a_conftest_file():
    files = python_files()
    assert len(files) > 100
    offenders = [
        f"{path.relative_to(ROOT)}:{line}"
        for path in files
        for line in conftest_imports(path.read_text(encoding="utf-8"))
    ]
    assert offenders == [], "import these from a helpers module instead: " + ", ".join(offenders)


def test_every_way_of_importing_a_conftest_module_is_caught():
    source = (
        "from conftest import make_user\n"
        "from apps.study.conftest import StudyModel\n"
        "import tests.conftest\n"
        "from . import conftest\n"
        "from tests.helpers.users import make_user\n"
        "import conftest_like\n"
    )
    assert conftest_imports(source) == [1, 2, 3, 4]
