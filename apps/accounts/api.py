"""Personal API tokens and the admin's teacher accounts, and what every router shares: the
Bearer token, the teacher check, the id type and the error body. Student accounts belong to
classes (apps/classes/api.py)."""

from datetime import datetime
from typing import Annotated, Any

from django.contrib.auth import authenticate
from django.db.models import BigIntegerField
from django.http import HttpRequest
from django.shortcuts import get_object_or_404
from ninja import Field, Router, Schema, Status
from ninja.errors import HttpError
from ninja.security import HttpBearer, SessionAuth
from pydantic import AfterValidator
from pydantic_core import PydanticCustomError

from apps.accounts.models import ApiToken, User

router = Router(tags=["accounts"])

# Every id in a path, a query or a body: a database key, 1 to Django's largest 64-bit integer
# (the bound the chat socket and forms check too, as apps.vault.scope.MAX_ID). A bigger number
# names nothing and would overflow SQLite; it is refused with 422 like any other invalid value.
Id = Annotated[int, Field(ge=1, le=BigIntegerField.MAX_BIGINT)]

# Text that must say something: a character other than a space, and (like every string a client
# sends, see cognivault_site/api.py) no NUL character. The schema states it as a pattern, its
# spaces spelled out as those str.strip() removes (`\s` means others in JavaScript's regexes);
# the check says it in words.
SPACES = r"\t\n\v\f\r\x1c-\x20\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
NOT_BLANK = rf"^[^\x00]*[^\x00{SPACES}][^\x00]*$"


def not_blank(text: str) -> str:
    if not text.strip():
        raise PydanticCustomError("blank", "This cannot be blank: write something.")
    return text


Said = Annotated[str, AfterValidator(not_blank), Field(json_schema_extra={"pattern": NOT_BLANK})]


def said(max_length: int, **field) -> Any:
    """The field of a `Said` text, up to `max_length` characters."""
    return Field(min_length=1, max_length=max_length, **field)


class FieldErrorOut(Schema):
    type: str
    loc: list[str | int]
    msg: str


class ErrorOut(Schema):
    """Every error answer: what was refused, or (422 from validation) the fields at fault."""

    detail: str | list[FieldErrorOut]


class BearerToken(HttpBearer):
    def authenticate(self, request: HttpRequest, token: str) -> User | None:
        user = ApiToken.objects.authenticate(token)
        if user is not None:
            # Code shared with the views reads request.user, as after a session login.
            request.user = user
        return user


class BrowserSession(SessionAuth):
    """The logged-in browser session, its writes CSRF-checked (403 without the token). Without
    one there is nothing a forged request could use: a script whose token is wrong or revoked,
    or that sent none, is told 401, not that a CSRF check failed."""

    def __call__(self, request: HttpRequest) -> User | None:
        if not request.user.is_authenticated:
            return None
        return super().__call__(request)


def require_teacher(request: HttpRequest, refusal: str) -> User:
    """The teacher who asks; anyone else gets a 403 saying `refusal`."""
    if not request.auth.is_teacher:
        raise HttpError(403, refusal)
    return request.auth


class TokenIn(Schema):
    username: str
    password: str
    name: str = Field("API token", max_length=ApiToken._meta.get_field("name").max_length)


class TokenCreated(Schema):
    token: str


class TokenOut(Schema):
    id: Id
    name: str
    prefix: str
    created_at: datetime
    last_used_at: datetime | None


@router.post("/auth/token", auth=None, response={200: TokenCreated, 401: ErrorOut, 429: ErrorOut})
def create_token(request: HttpRequest, payload: TokenIn):
    # A lockout after repeated failures is answered by django-axes (429, see views.locked_out).
    user = authenticate(request, username=payload.username, password=payload.password)
    if user is None:
        raise HttpError(401, "Invalid username or password.")
    _, raw = ApiToken.objects.issue(user, payload.name)
    return {"token": raw}


@router.get("/auth/tokens", response=list[TokenOut])
def list_tokens(request: HttpRequest):
    return ApiToken.objects.visible_to(request.auth)


@router.delete("/auth/tokens/{token_id}", response={204: None, 404: ErrorOut})
def revoke_token(request: HttpRequest, token_id: Id):
    get_object_or_404(ApiToken.objects.visible_to(request.auth), pk=token_id).delete()
    return Status(204, None)


MAX_TEACHERS_PER_REQUEST = 50
TeacherName = Annotated[Said, said(150)]


class TeachersIn(Schema):
    usernames: list[TeacherName] = Field(..., min_length=1, max_length=MAX_TEACHERS_PER_REQUEST)


class TeacherCredentialOut(Schema):
    username: str
    password: str


@router.post(
    "/accounts/teachers",
    response={201: list[TeacherCredentialOut], 403: ErrorOut, 422: ErrorOut},
)
def create_teachers(request: HttpRequest, payload: TeachersIn):
    """Teachers' accounts, made by the admin; their passwords work at once."""
    if not request.auth.is_admin:
        raise HttpError(403, "Only the admin adds teachers.")
    made = User.objects.create_teachers([name.strip() for name in payload.usernames])
    return Status(
        201, [{"username": user.username, "password": password} for user, password in made]
    )
