"""The load generator of bench_classroom.py, a process of its own so that its CPU is not the
app's and the bench prints it apart: Locust (as a library, headless, on gevent) plays the
students of a plan the bench wrote as JSON, and writes what it measured to a JSON file.

    python bench/classroom_load.py class PLAN.json OUT.json   # the login rush, then the lesson
    python bench/classroom_load.py ramp PLAN.json OUT.json    # pages only, at a rising rate

Not a bench of its own (`make bench` runs bench/bench_*.py only).
"""

from gevent import monkey

monkey.patch_all()  # before anything opens a socket: Locust's users are greenlets

import json  # noqa: E402
import random  # noqa: E402
import re  # noqa: E402
import resource  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from dataclasses import asdict, dataclass, field  # noqa: E402
from pathlib import Path  # noqa: E402
from urllib.parse import parse_qs, urlsplit  # noqa: E402

import gevent  # noqa: E402
import requests  # noqa: E402
import websocket  # noqa: E402
from locust import HttpUser, events, task  # noqa: E402
from locust.env import Environment  # noqa: E402
from locust.exception import StopUser  # noqa: E402

FIRST_FRAGMENT = re.compile(r'<div id="answer-tokens-(\d+)" hx-swap-oob="beforeend">')
FINISHED = re.compile(r'<article id="message-(\d+)" class="message assistant (\w+)" hx-swap-oob')
CSRF = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')
# What each way of logging in requests: the page (the form, or the card's address), then its POST.
LOGIN_REQUESTS = {"password": ("login form", "log in"), "badge": ("card page", "card log in")}
RAMP_PAGES = ["/", "/study/", "/vault/", "/progress/", "/study/quizzes/", "/study/decks/"]


@dataclass
class Question:
    username: str
    text: str
    sent: float  # epoch seconds
    answer_id: int | None = None
    first: float | None = None  # the first answer fragment on the socket
    ended: str = ""  # the answer's final status as the socket showed it


@dataclass
class Results:
    times: dict[str, list[float]] = field(default_factory=dict)  # request name -> ms
    # Of those, the requests that started while the class was logging in (its first
    # `login_seconds`): the rush, when the pages wait longest.
    rush: dict[str, list[float]] = field(default_factory=dict)
    began: float = 0.0  # epoch seconds, when the first student started
    errors: dict[str, int] = field(default_factory=dict)
    logins: dict[str, list[float]] = field(default_factory=dict)  # method -> ms
    login_failures: dict[str, int] = field(default_factory=dict)
    questions: list[Question] = field(default_factory=list)
    sockets: int = 0
    refused: list[str] = field(default_factory=list)  # socket handshakes refused, tried again
    dropped: list[str] = field(default_factory=list)
    study: dict[str, int] = field(default_factory=dict)  # "quiz ready", "deck failed", ...
    attempts: dict[str, int] = field(default_factory=dict)  # class quiz: status code -> count
    saved: dict[int, str] = field(default_factory=dict)  # answer id -> status in the database
    sessions: list[dict] = field(default_factory=list)  # the students' cookies, for the ramp
    stages: list[tuple[float, float, float, int]] = field(default_factory=list)
    cpu_seconds: float = 0.0  # this process's own
    recording: bool = True


plan: dict = {}
results = Results()
students: list["Student"] = []


@events.request.add_listener
def on_request(name, response_time, exception, **kwargs) -> None:
    if not results.recording:
        return
    if exception is None:
        results.times.setdefault(name, []).append(response_time)
        if time.time() - response_time / 1000 < results.began + plan.get("login_seconds", 0):
            results.rush.setdefault(name, []).append(response_time)
    else:
        results.errors[name] = results.errors.get(name, 0) + 1


def add(counter: dict, key: str) -> None:
    counter[key] = counter.get(key, 0) + 1


class Student(HttpUser):
    """One student: logged in by password or by their card, the chat page's socket open all
    along, a page every 1–3 s; the questions, the two generations and the class quiz at random
    moments of the lesson."""

    def wait_time(self) -> float:
        return random.uniform(1, 3)

    def on_start(self) -> None:
        self.me = plan["students"].pop()
        self.username = self.me["username"]
        landing = self.log_in()
        self.client.get(landing, name="first page")  # where the login sends the student
        made = self.client.post(
            "/api/v1/chat/sessions", json={"title": "Biology"}, headers=self.csrf(), name="API chat"
        )
        self.thread = made.json()["id"]
        self.pages = [
            ("/", "home"),
            ("/study/", "hub"),
            ("/vault/", "vault"),
            ("/progress/", "dashboard"),
            (f"/chat/{self.thread}/", "chat"),
            ("/study/quizzes/", "quizzes"),
            ("/study/decks/", "decks"),
        ]
        self.plan_lesson(plan["seconds"])
        self.socket = self.open_socket()
        results.sockets += 1
        students.append(self)
        self.reader = gevent.spawn(self.read)

    def open_socket(self) -> websocket.WebSocket:
        """The chat page's socket; as the page's htmx socket does, a handshake the server
        refuses or drops (daphne gives up on one its app has not accepted within 5 s) is tried
        again, here after 1, 2, 4, then every 8 s for about a minute. Each refusal is counted."""
        cookie = "; ".join(f"{name}={value}" for name, value in self.client.cookies.items())
        ws_url = self.host.replace("http", "ws", 1) + f"/ws/chat/{self.thread}/"
        for wait in (1, 2, 4, *[8] * 7, 0):
            try:
                return websocket.create_connection(ws_url, cookie=cookie, origin=self.host)
            except (websocket.WebSocketException, OSError) as error:
                results.refused.append(f"{self.username}: {error!r}")
                if not wait:
                    raise StopUser() from error
                gevent.sleep(wait)

    def plan_lesson(self, seconds: float) -> None:
        """Questions spread over the lesson, one at a time; the generations and the class quiz
        anywhere before its end."""
        self.started = time.monotonic()
        self.ask_at = sorted(random.uniform(5, seconds - 30) for _ in range(plan["questions"]))
        self.todo = {kind: random.uniform(5, seconds - 40) for kind in ("quiz", "deck")}
        self.todo["class quiz"] = random.uniform(5, seconds - 30)
        self.asked = 0
        self.pending: Question | None = None
        self.ending = False

    def csrf(self) -> dict:
        return {"X-CSRFToken": self.client.cookies.get("csrftoken", ""), "Referer": self.host}

    def log_in(self) -> str:
        """By password through the login form, or by opening the card's address and pressing
        its button; the time of both requests is the login's. Returns where it sends them."""
        method = self.me["method"]
        page_name, post_name = LOGIN_REQUESTS[method]
        began = time.monotonic()
        if method == "badge":
            page = self.client.get(self.me["badge_path"], name=page_name).text
            token = parse_qs(urlsplit(self.me["badge_path"]).query)["badge"][0]
            path, form = "/accounts/badge/", {"badge": token}
        else:
            page = self.client.get("/accounts/login/", name=page_name).text
            path = "/accounts/login/"
            form = {"username": self.username, "password": self.me["password"]}
        form["csrfmiddlewaretoken"] = CSRF.search(page).group(1)
        done = self.client.post(path, data=form, name=post_name, allow_redirects=False)
        if done.status_code != 302 or "sessionid" not in self.client.cookies:
            add(results.login_failures, method)
            raise StopUser()
        results.logins.setdefault(method, []).append((time.monotonic() - began) * 1000)
        results.sessions.append(self.client.cookies.get_dict())
        return done.headers["Location"]

    def read(self) -> None:
        """Every frame of the socket; notes when the current answer starts and ends."""
        while True:
            try:
                frame = self.socket.recv()
            except Exception as error:  # closed by the server, or broken
                if not self.ending:
                    results.dropped.append(f"{self.username}: {error!r}")
                return
            now = time.time()
            question = self.pending
            if question is None or not isinstance(frame, str):
                continue
            if question.first is None:
                match = FIRST_FRAGMENT.search(frame)
                if match:
                    question.answer_id, question.first = int(match.group(1)), now
            for answer_id, status in FINISHED.findall(frame):
                if question.answer_id in (None, int(answer_id)) and status != "streaming":
                    question.answer_id, question.ended = int(answer_id), status
                    self.pending = None

    def on_stop(self) -> None:
        self.ending = True
        self.socket.close()

    @task
    def next_thing(self) -> None:
        elapsed = time.monotonic() - self.started
        for kind, when in list(self.todo.items()):
            if elapsed >= when:
                del self.todo[kind]
                self.take_class_quiz() if kind == "class quiz" else self.generate(kind)
                return
        if (
            self.asked < len(self.ask_at)
            and elapsed >= self.ask_at[self.asked]
            and not self.pending
        ):
            self.ask()
            return
        path, name = random.choice(self.pages)
        self.client.get(path, name=name)

    def ask(self) -> None:
        self.asked += 1
        text = f"Question {self.asked} of {self.username}: what do mitochondria do?"
        self.pending = Question(self.username, text, time.time())
        results.questions.append(self.pending)
        self.socket.send(json.dumps({"content": text}))

    def generate(self, kind: str) -> None:
        """202 `generating`, then polled until ready or failed; a 201 is the finished item."""
        route = {"quiz": "/api/v1/study/quizzes", "deck": "/api/v1/study/decks"}[kind]
        body = {"quiz": {"num_questions": 5, "difficulty": "beginner"}, "deck": {"num_cards": 10}}
        response = self.client.post(route, json=body[kind], headers=self.csrf(), name=f"API {kind}")
        if response.status_code not in (200, 201, 202):
            add(results.study, f"{kind} refused ({response.status_code})")
            return
        item = response.json()
        deadline = time.monotonic() + 120
        while item.get("status") == "generating" and time.monotonic() < deadline:
            gevent.sleep(1)
            item = self.client.get(f"{route}/{item['id']}", name=f"API {kind} poll").json()
        add(results.study, f"{kind} {item.get('status') or 'ready'}")

    def take_class_quiz(self) -> None:
        """The quiz the student's teacher handed out: its page, then an attempt (the first
        option everywhere) through the API."""
        quiz = self.me["quiz_id"]
        self.client.get(f"/study/quizzes/{quiz}/", name="class quiz")
        paper = self.client.get(f"/api/v1/study/quizzes/{quiz}", name="API class quiz").json()
        attempt = self.client.post(
            f"/api/v1/study/quizzes/{quiz}/attempts",
            json={"answers": [0] * len(paper["questions"])},
            headers=self.csrf(),
            name="API class quiz attempt",
        )
        add(results.attempts, str(attempt.status_code))


class Browser(HttpUser):
    """A student of the ramp: pages only, at the rate the ramp sets for the whole class."""

    rate = 0.0  # pages per second over all Browser users

    def wait_time(self) -> float:
        spent = time.monotonic() - self.last_start
        return max(0.0, plan["users"] / Browser.rate - spent)

    def on_start(self) -> None:
        # The class's own sessions: the ramp measures pages, not logins.
        self.client.cookies.update(random.choice(plan["sessions"]))
        gevent.sleep(random.uniform(0, plan["users"] / Browser.rate))  # not all at once
        self.last_start = time.monotonic()

    @task
    def browse(self) -> None:
        self.last_start = time.monotonic()
        self.client.get(random.choice(RAMP_PAGES), name="ramp")


def run_class() -> None:
    """Every student logs in within `login_seconds`, then the lesson; the last answers are
    waited for (a minute at most)."""
    count = len(plan["students"])
    environment = Environment(user_classes=[Student], host=plan["url"], events=events)
    runner = environment.create_local_runner()
    results.began = time.time()
    runner.start(count, spawn_rate=count / plan["login_seconds"])
    gevent.sleep(plan["seconds"])
    deadline = time.monotonic() + 60
    while any(q.ended == "" for q in results.questions) and time.monotonic() < deadline:
        gevent.sleep(0.5)
    results.recording = False
    results.cpu_seconds = own_cpu_seconds()
    runner.quit()
    runner.greenlet.join()
    answers_saved()


def answers_saved() -> None:
    """Each answer's status as the API shows it afterwards, with the student's own session."""
    for student in students:
        with requests.Session() as session:
            session.cookies.update(student.client.cookies.get_dict())
            thread = session.get(f"{plan['url']}/api/v1/chat/sessions/{student.thread}", timeout=60)
            for message in thread.json()["messages"]:
                if message["role"] == "assistant":
                    results.saved[message["id"]] = message["status"]


def run_ramp() -> None:
    """Stages at a rising page rate, up to the first whose p95 crosses `limit_ms`."""
    environment = Environment(user_classes=[Browser], host=plan["url"], events=events)
    runner = environment.create_local_runner()
    results.recording = False
    Browser.rate = plan["start"]
    runner.start(plan["users"], spawn_rate=plan["users"])
    gevent.sleep(plan["users"] / plan["start"] + 3)  # everyone started and paced
    for _ in range(plan["stages"]):
        gevent.sleep(2)  # the users take up the new pace
        results.times.pop("ramp", None)
        results.errors.pop("ramp", None)
        results.recording = True
        gevent.sleep(plan["seconds"])
        results.recording = False
        times, errors = results.times.get("ramp", []), results.errors.get("ramp", 0)
        p95 = sorted(times)[round(0.95 * (len(times) - 1))] if times else float("nan")
        results.stages.append((Browser.rate, len(times) / plan["seconds"], p95, errors))
        if p95 > plan["limit_ms"]:
            break
        Browser.rate *= plan["step"]
    runner.quit()
    runner.greenlet.join()


def own_cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    mode, plan_file, out_file = sys.argv[1:4]
    plan.update(json.loads(Path(plan_file).read_text()))
    {"class": run_class, "ramp": run_ramp}[mode]()
    out = asdict(results)
    Path(out_file).write_text(json.dumps(out))


if __name__ == "__main__":
    main()
