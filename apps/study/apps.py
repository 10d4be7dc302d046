from importlib import import_module

from django.apps import AppConfig

# The packages that each declare a kind of study material in their kind.py
# (apps/study/kinds.py); a new kind is one more package here.
FEATURES = ("quizzes", "workshops", "flashcards", "mindmaps")


class StudyConfig(AppConfig):
    name = "apps.study"
    label = "study"
    verbose_name = "Study Hub"

    def ready(self) -> None:
        for feature in FEATURES:
            import_module(f"{self.name}.{feature}.kind")
