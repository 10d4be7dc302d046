from django.apps import AppConfig


class StudyConfig(AppConfig):
    name = "apps.study"
    label = "study"
    verbose_name = "Study Hub"
