from django.urls import path

from apps.llm import views

app_name = "llm"

urlpatterns = [
    path("", views.privacy, name="privacy"),
    path("connections/", views.connection_list, name="connection_list"),
    path("indicator/", views.egress_indicator, name="egress_indicator"),
    path("prompts/", views.prompt_templates, name="prompt_templates"),
]
