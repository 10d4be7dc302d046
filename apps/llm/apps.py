from django.apps import AppConfig
from django.conf import settings


class LlmConfig(AppConfig):
    name = "apps.llm"
    label = "llm"
    verbose_name = "Models and privacy"

    def ready(self) -> None:
        if settings.EGRESS_RECORD:
            from apps.llm import audit

            audit.start_recording()
