"""Prompt templates: Markdown files with {{ name }} placeholders, overridable per install.

A file of the same name under DATA_DIR/prompts/custom/ wins over the shipped one. Files
are read on every call, so an edit takes effect on the next request without a restart.
"""

import re
from dataclasses import dataclass
from pathlib import Path

from django.apps import apps
from django.conf import settings

_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]*$")
_PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")


class PromptError(LookupError):
    pass


@dataclass(frozen=True)
class Template:
    name: str
    custom: bool
    text: str

    @property
    def placeholders(self) -> list[str]:
        return sorted(set(_PLACEHOLDER.findall(self.text)))


def custom_dir() -> Path:
    return settings.DATA_DIR / "prompts" / "custom"


def shipped_dirs() -> list[Path]:
    """`prompts/` beside each of our apps; apps/llm ships the shared ones."""
    found = []
    for config in apps.get_app_configs():
        if config.name.startswith("apps."):
            folder = Path(config.path) / "prompts"
            if folder.is_dir():
                found.append(folder)
    return found


def load(name: str) -> Template:
    if not _NAME.match(name):
        raise PromptError(f"not a prompt name: {name!r}")
    custom = custom_dir() / f"{name}.md"
    if custom.is_file():
        return Template(name, True, custom.read_text(encoding="utf-8"))
    for folder in shipped_dirs():
        path = folder / f"{name}.md"
        if path.is_file():
            return Template(name, False, path.read_text(encoding="utf-8"))
    raise PromptError(f"no prompt template named {name!r}")


def render(name: str, **values: object) -> str:
    """The effective template `name` with every {{ placeholder }} filled in.

    A placeholder without a value is an error (a silently empty prompt is worse);
    values the template does not use are ignored, so a custom template may drop them.
    """
    template = load(name)
    missing = [key for key in template.placeholders if key not in values]
    if missing:
        raise PromptError(f"prompt {name!r} needs values for: {', '.join(missing)}")
    return _PLACEHOLDER.sub(lambda match: str(values[match.group(1)]), template.text).strip()


def effective_templates() -> list[Template]:
    """Every template the app ships, as it is in effect now (custom where overridden)."""
    names = sorted({path.stem for folder in shipped_dirs() for path in folder.glob("*.md")})
    return [load(name) for name in names]
