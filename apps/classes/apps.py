from django.apps import AppConfig


class ClassesConfig(AppConfig):
    name = "apps.classes"
    label = "classes"
    verbose_name = "Classes"
