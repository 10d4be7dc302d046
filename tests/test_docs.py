"""The documentation stays true to the tree: every relative link and #anchor in README.md and
docs/*.md leads somewhere, and every environment variable the app reads is on the
configuration page."""

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
CONFIGURATION = ROOT / "docs" / "configuration.md"

FENCE = re.compile(r"^(```|~~~).*?^\1", re.MULTILINE | re.DOTALL)
CODE_SPAN = re.compile(r"`[^`\n]*`")
LINK = re.compile(r"!?\[[^\]\n]*\]\(([^)\s]+)\)")
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.MULTILINE)
ENV_READERS = {"env_str", "env_bool", "env_int", "env_list", "env_path"}


def prose(text: str) -> str:
    """The page without its code blocks, where brackets are code, not links."""
    return FENCE.sub("", text)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading).replace("`", "").lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    seen: dict[str, int] = {}
    found = set()
    for heading in HEADING.findall(prose(page.read_text())):
        base = slug(heading)
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def links(page: Path) -> list[str]:
    return LINK.findall(CODE_SPAN.sub("", prose(page.read_text())))


def broken_links(page: Path) -> list[str]:
    broken = []
    for target in links(page):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto:
            continue
        path, _, anchor = target.partition("#")
        linked = (page.parent / path).resolve() if path else page
        if not linked.exists():
            broken.append(f"{target} (no such file)")
        elif anchor and linked.suffix == ".md" and anchor not in anchors(linked):
            broken.append(f"{target} (no such heading)")
    return broken


def env_name(call: ast.Call) -> str | None:
    """The variable a call reads: env_int("NAME", ...), os.environ.get("NAME"),
    os.environ.setdefault("NAME", ...), os.getenv("NAME")."""
    if not call.args or not isinstance(call.args[0], ast.Constant):
        return None
    name, func = call.args[0].value, call.func
    if isinstance(func, ast.Name) and func.id in ENV_READERS:
        return name
    if isinstance(func, ast.Attribute):
        if func.attr == "getenv":
            return name
        owner = func.value
        is_environ = (isinstance(owner, ast.Attribute) and owner.attr == "environ") or (
            isinstance(owner, ast.Name) and owner.id == "environ"
        )
        if is_environ and func.attr in {"get", "setdefault", "pop"}:
            return name
    return None


def environment_reads() -> dict[str, str]:
    """Every variable read from the environment in apps/ and cognivault_site/, with where."""
    found = {}
    for source in [*(ROOT / "apps").rglob("*.py"), *(ROOT / "cognivault_site").rglob("*.py")]:
        for node in ast.walk(ast.parse(source.read_text(), filename=str(source))):
            name = None
            if isinstance(node, ast.Call):
                name = env_name(node)
            elif (
                isinstance(node, ast.Subscript)
                and isinstance(node.ctx, ast.Load)
                and isinstance(node.value, ast.Attribute)
                and node.value.attr == "environ"
                and isinstance(node.slice, ast.Constant)
            ):
                name = node.slice.value
            if isinstance(name, str):
                found.setdefault(name, f"{source.relative_to(ROOT)}:{node.lineno}")
    return found


def documented_variables() -> set[str]:
    """The names in the first cell of each table row of the configuration page."""
    names = set()
    for line in CONFIGURATION.read_text().splitlines():
        if line.startswith("| `"):
            names |= set(re.findall(r"`([A-Z][A-Z0-9_]*)`", line.split("|")[1]))
    return names


def test_github_anchors_drop_punctuation_and_join_words_with_hyphens():
    assert slug("How `make setup` installs the embedded models") == (
        "how-make-setup-installs-the-embedded-models"
    )
    assert slug("Lockout, quotas and rate limits") == "lockout-quotas-and-rate-limits"
    assert slug("The socket path: who writes an answer") == "the-socket-path-who-writes-an-answer"


def test_every_relative_link_and_anchor_in_the_docs_leads_somewhere():
    assert len(PAGES) > 5
    broken = {page.name: found for page in PAGES if (found := broken_links(page))}
    assert not broken, f"broken links: {broken}"


def test_the_readme_links_every_page_of_the_docs():
    linked = {Path(target.partition("#")[0]).name for target in links(ROOT / "README.md")}
    assert {page.name for page in PAGES[1:]} <= linked


def test_every_environment_variable_the_app_reads_is_on_the_configuration_page():
    reads = environment_reads()
    # The collector sees env_int and its kin, os.environ.get and os.environ[...] alike.
    assert {"DATA_DIR", "DATABASE_URL", "SECRET_KEY", "TEACHER_USERNAME", "LOG_LEVEL"} <= set(reads)
    missing = {name: where for name, where in reads.items() if name not in documented_variables()}
    assert not missing, f"read from the environment but not in docs/configuration.md: {missing}"


def test_every_file_the_docs_name_is_in_the_tree():
    named = re.compile(r"`((?:apps|cognivault_site|tests|bench|templates|static|docs)/[\w./-]*)`")
    missing = {
        f"{page.name}: {path}"
        for page in PAGES
        for path in named.findall(page.read_text())
        if not (ROOT / path).exists()
    }
    assert not missing, f"named in the docs but not in the tree: {sorted(missing)}"
