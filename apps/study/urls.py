from django.urls import include, path

from apps.study import kinds, views
from apps.study.quizzes import views as quizzes
from apps.vault.reading import views as reading

app_name = "study"

urlpatterns = [
    path("", quizzes.quiz_list, name="index"),  # the hub opens on its first tab
    # Where study items linked their passages before the reader: it opens there now.
    path("sources/<int:chunk_pk>/", reading.passage, name="source-detail"),
    path("stale/<str:kind>/<int:pk>/refresh/", views.stale_refresh, name="stale-refresh"),
    path("generations/<str:kind>/<int:pk>/", views.generation_status, name="generation-status"),
    path(
        "generations/<str:kind>/<int:pk>/retry/",
        views.generation_retry,
        name="generation-retry",
    ),
    # Each kind's own pages, as it declares them (apps/study/kinds.py).
    *(path(kind.urls[0], include(kind.urls[1])) for kind in kinds.every() if kind.urls),
    path("class-sets/", include("apps.study.classsets.urls")),
]
