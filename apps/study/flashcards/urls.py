from django.urls import path

from apps.study.flashcards import views
from apps.study.views import delete

urlpatterns = [
    path("", views.deck_list, name="deck-list"),
    path("generate/", views.deck_generate, name="deck-generate"),
    path("new/", views.deck_create, name="deck-create"),
    path("import/", views.deck_import, name="deck-import"),
    path("due/", views.deck_due, name="deck-due"),
    path("<int:pk>/", views.deck_detail, name="deck-detail"),
    path("<int:pk>/rename/", views.deck_update, name="deck-update"),
    path("<int:pk>/delete/", delete, {"kind": "deck"}, name="deck-delete"),
    path("<int:pk>/study/", views.deck_study, name="deck-study"),
    path("<int:pk>/export.<str:fmt>", views.deck_export, name="deck-export"),
    path("<int:pk>/cards/", views.card_create, name="card-create"),
    path("<int:pk>/cards/<int:card_pk>/", views.card_update, name="card-update"),
    path("<int:pk>/cards/<int:card_pk>/delete/", views.card_delete, name="card-delete"),
    path("<int:pk>/cards/<int:card_pk>/flip/", views.card_flip, name="card-flip"),
    path("<int:pk>/cards/<int:card_pk>/review/", views.card_review, name="card-review"),
]
