"""The people of the tests: made with one password, and a test client logged in as one."""

from django.test import Client

from apps.accounts.models import User

PASSWORD = "correct-horse-battery"


def make_user(username: str, *, teacher: bool = False) -> User:
    return User.objects.create_user(username, password=PASSWORD, is_staff=teacher)


def client_for(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client
