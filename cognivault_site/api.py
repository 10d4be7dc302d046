"""The REST API under /api/v1/: each app's router, session or Bearer-token auth, JSON errors."""

from django.http import HttpRequest, HttpResponse
from ninja import NinjaAPI, Schema
from ninja.security import django_auth

from apps.accounts.api import BearerToken
from apps.accounts.api import router as accounts_router
from apps.accounts.ratelimits import RateLimited
from apps.chat.api import router as chat_router
from apps.chat.errors import ChatError
from apps.llm.api import router as llm_router
from apps.progress.api import router as progress_router
from apps.study.api import router as study_router
from apps.study.errors import StudyError
from apps.study.flashcards.api import router as decks_router
from apps.study.mindmaps.api import router as mindmaps_router
from apps.study.quizzes.api import router as quizzes_router
from apps.study.workshops.api import router as workshops_router
from apps.vault.api import router as vault_router
from apps.vault.errors import VaultError
from cognivault_site import health

api = NinjaAPI(
    title="CogniVault API",
    version="1",
    description="Your vault, chats and study tools. Authenticate with the browser session "
    "or `Authorization: Bearer <token>` (create one at POST /auth/token).",
    auth=[BearerToken(), django_auth],
    urls_namespace="api",
)


AppError = ChatError | VaultError | StudyError | RateLimited


def app_error(request: HttpRequest, error: AppError) -> HttpResponse:
    """What an app refuses, with the status its error class names, as {"detail": ...}."""
    return api.create_response(request, {"detail": str(error)}, status=error.status)


for app_errors in (ChatError, VaultError, StudyError, RateLimited):
    api.add_exception_handler(app_errors, app_error)


class CheckOut(Schema):
    status: str
    detail: str


class ModelCheckOut(Schema):
    backend: str
    model: str
    ready: bool
    detail: str


class ChatModelOut(ModelCheckOut):
    limits: list[str]


class OllamaOut(Schema):
    host: str
    reachable: bool
    models: list[str]
    detail: str


class ModelsOut(Schema):
    chat: ChatModelOut
    embeddings: ModelCheckOut
    speech: ModelCheckOut
    ollama: OllamaOut


class HealthOut(Schema):
    status: str
    database: CheckOut
    redis: CheckOut
    worker: CheckOut
    models: ModelsOut


class PartOut(Schema):
    status: str


class ModelPartsOut(Schema):
    chat: PartOut
    embeddings: PartOut
    speech: PartOut


class HealthSummaryOut(Schema):
    status: str
    database: PartOut
    redis: PartOut
    worker: PartOut
    models: ModelPartsOut


@api.get("/health", auth=None, response=HealthOut | HealthSummaryOut, tags=["health"])
def get_health(request: HttpRequest):
    """`ok` or `degraded`, and `ok` or `down` per part; a logged-in teacher also gets the
    details (addresses, paths, worker names)."""
    full = health.report()
    # Open to all, so neither auth runs by itself: a teacher's session or token is looked at here.
    user = request.user if request.user.is_authenticated else BearerToken()(request)
    return full if user is not None and user.is_teacher else health.summary(full)


api.add_router("/", accounts_router)
# GET /vault/stats (the privacy figures) lives with the privacy audit in apps/llm.
api.add_router("/", llm_router)
api.add_router("/progress/", progress_router)
api.add_router("/vault/", vault_router)


api.add_router("/study/", study_router)
api.add_router("/study/", quizzes_router)
api.add_router("/study/", workshops_router)
api.add_router("/study/", decks_router)
api.add_router("/study/", mindmaps_router)
api.add_router("/chat/", chat_router)
