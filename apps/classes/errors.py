"""What the classes refuse, each with its HTTP status (the API maps them in
cognivault_site/api.py; pages show the message)."""


class ClassError(Exception):
    status = 400


class ChooseAClass(ClassError):
    status = 422


class NotAllowed(ClassError):
    status = 403


class WrongCode(ClassError):
    status = 404


class NotAStudent(ClassError):
    status = 422
