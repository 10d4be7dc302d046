from importlib import import_module
from pathlib import Path

from django.apps import AppConfig


class StudyConfig(AppConfig):
    name = "apps.study"
    label = "study"
    verbose_name = "Study Hub"

    def ready(self) -> None:
        # Each package holding a kind.py declares a kind of study material (apps/study/kinds.py).
        for declaration in sorted(Path(self.path).glob("*/kind.py")):
            import_module(f"{self.name}.{declaration.parent.name}.kind")
