"""Fixtures of the web tests: a fresh app and temp databases per test, real TableRunners.

The runner is the engine engineer's real ``TableRunner`` on a temp SQLite file; its clock is a
controllable one where a test needs exact times (the feed delay), the wall clock otherwise.
"""

from __future__ import annotations

import shutil
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from table_service.web import users
from table_service.web.app import create_app

PASSWORD = "correct-horse-9"
USERS = {"vera": "viewer", "rita": "referee", "chen": "chief"}


class FakeClockMs:
    """A clock in milliseconds that only moves when told (shared by runner and feed in a test)."""

    def __init__(self, start: int = 1_795_000_000_000) -> None:
        self.now = int(start)
        self._lock = threading.Lock()

    def __call__(self) -> int:
        with self._lock:
            return self.now

    def advance(self, ms: int) -> int:
        with self._lock:
            self.now += int(ms)
            return self.now


def wait_for(cond: Callable[[], Any], timeout: float = 60.0, interval: float = 0.01) -> Any:
    """Poll ``cond`` until it returns a truthy value; fail the test after ``timeout`` s.

    The default deadline is generous on purpose: it only bounds a hang. A true condition returns
    at once; a loaded 2-core CI machine can take seconds where a free one takes milliseconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = cond()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"condition not met within {timeout} s")
        time.sleep(interval)


@pytest.fixture(autouse=True)
def no_enrolment_left_over() -> Iterator[None]:
    """A table's enrolment session lives in the web process (``web.enroll._sessions``, by table id): one
    a test left waiting for answers would refuse the next test's start (409, the s38 rule that keeps
    answers), as it would on a table whose panel restarted in the same process. Each test starts clean."""
    from table_service.web import enroll

    enroll._sessions.clear()
    yield
    enroll._sessions.clear()


@pytest.fixture(scope="session")
def _users_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # Hashing is deliberately slow (scrypt); hash the test accounts once per session.
    path = tmp_path_factory.mktemp("users") / "template.sqlite3"
    conn = users.connect(path)
    for name, role in USERS.items():
        users.add_user(conn, name, PASSWORD, role)
    conn.close()
    return path


@pytest.fixture
def users_db(tmp_path: Path, _users_template: Path) -> str:
    """A fresh copy of the user database for this test."""
    path = tmp_path / "users.sqlite3"
    shutil.copyfile(_users_template, path)
    return str(path)


@pytest.fixture
def make_app(users_db: str) -> Iterator[Callable[..., Any]]:
    """Build apps with the test users; every attached table is detached again at the end."""
    apps: list[Any] = []

    def build(**extra: Any) -> Any:
        cfg = {"TESTING": True, "USERS_DB": users_db, "SECRET_KEY": "test-secret"}
        cfg.update(extra)
        app = create_app(cfg)
        apps.append(app)
        return app

    yield build
    from table_service.web.tables import detach_table, web_state

    for app in apps:
        web_state(app).begin_shutdown()
        for tid in list(web_state(app).tables):
            detach_table(app, tid)


PLAYERS = {"E": "张伟", "S": "李娜", "W": "王强", "N": "赵敏"}


def setup_deal(runner: Any, ruleset: Any = "jiangsu") -> None:
    """Start a round and its first deal through the real runner: North leads (cut card 7s)."""
    for ev in (
        {"type": "round_set_up", "source": "panel", "role": "referee",
         "data": {"players": PLAYERS, "ruleset": ruleset, "format": {"kind": "deals", "deals": 2}}},
        {"type": "first_cut_recorded", "source": "panel", "data": {"card": "7s"}},
        {"type": "drawing_finished", "source": "panel", "data": {}},
    ):
        res = runner.submit(ev)
        assert res.accepted, res.error


def play(runner: Any, seat: str, cards: list[str], **extra: Any) -> Any:
    """A camera-read play submitted to the runner, as the vision watcher would."""
    res = runner.submit({"type": "cards_played", "source": "camera",
                         "data": {"seat": seat, "cards": cards, **extra}})
    assert res.accepted, res.error
    return res


def crop_data_url(cards: list[str]) -> str:
    """A JPEG ``data:`` URL of a play zone showing ``cards``, rendered from the real card artwork
    by the vision package's synthetic camera (what the watcher would attach to a read)."""
    import base64

    import cv2

    from vision.synth import render_zone

    ok, jpg = cv2.imencode(".jpg", render_zone(cards, seed=7).image, [cv2.IMWRITE_JPEG_QUALITY, 80])
    assert ok
    return "data:image/jpeg;base64," + base64.b64encode(jpg.tobytes()).decode()


def laid_out_at(i: int) -> tuple[float, float]:
    """Where ``laid_out_deck`` lays card ``i`` of ALL_CARDS (its centre, table mm): nine a row."""
    return 130.0 + 80.0 * (i % 9), 120.0 + 115.0 * (i // 9)


def card_laid_at(x_mm: float, y_mm: float) -> str:
    """The card ``laid_out_deck`` put nearest ``(x_mm, y_mm)``: how a test names a card from its place."""
    from vision.cards import ALL_CARDS

    return ALL_CARDS[round((y_mm - 120.0) / 115.0) * 9 + round((x_mm - 130.0) / 80.0)]


def accounts(users_db: str) -> dict[str, str]:
    """Every account of the users database and its role (what the accounts page changed)."""
    conn = users.connect(users_db)
    try:
        return {u.name: u.role for u in users.list_users(conn)}
    finally:
        conn.close()


def open_table(page: Any, base: str, user: str, password: str = PASSWORD) -> None:
    """In a browser: logged in through the form, on table 1's panel with its stream live. The form
    leads on to the panel itself (``next``): it led to the list of tables, loaded only to leave it."""
    page.goto(f"{base}/auth/login?next=/tables/1")
    page.fill("#username", user)
    page.fill("#password", password)
    page.click("#login-submit")
    page.wait_for_selector('#app[data-connected="1"]')


class Helpers:
    """Test helpers handed out by the ``h`` fixture (conftest cannot be imported under importlib mode)."""

    open_table = staticmethod(open_table)

    accounts = staticmethod(accounts)

    PASSWORD = PASSWORD
    PLAYERS = PLAYERS
    setup_deal = staticmethod(setup_deal)
    crop_data_url = staticmethod(crop_data_url)
    card_laid_at = staticmethod(card_laid_at)
    play = staticmethod(play)
    USERS = USERS
    FakeClockMs = FakeClockMs

    @staticmethod
    def wait_for(cond: Callable[[], Any], timeout: float = 60.0, interval: float = 0.01) -> Any:
        return wait_for(cond, timeout, interval)

    @staticmethod
    def session_cookie(client: Any) -> str:
        return session_cookie(client)

    @staticmethod
    def csrf_of(client: Any) -> str:
        return csrf_of(client)

    @staticmethod
    def login(client: Any, name: str, password: str = PASSWORD) -> Any:
        return login(client, name, password)

    @staticmethod
    def post_json(client: Any, url: str, body: Any) -> Any:
        return post_json(client, url, body)

    @staticmethod
    def log_in_page(page: Any, base: str, user: str, password: str = PASSWORD, then: str | None = None) -> None:
        """Log a browser page in through the real login form; with ``then`` (a path), the form leads
        on to that page and this returns once it has loaded (as ``page.goto`` would: no page loaded
        between only to be left)."""
        page.goto(f"{base}/auth/login" + (f"?next={then}" if then else ""))
        page.fill("#username", user)
        page.fill("#password", password)
        page.click("#login-submit")
        if then:
            page.wait_for_url(f"{base}{then}")

    @staticmethod
    def logged_rows(runner: Any) -> int:
        """Every event the runner logged, rejected ones included: a refusal at a gate leaves the count."""
        conn = sqlite3.connect(f"file:{runner.db_path}?mode=ro", uri=True)
        try:
            return conn.execute("SELECT COUNT(*) FROM events").fetchone()[0]
        finally:
            conn.close()


@pytest.fixture
def h() -> type[Helpers]:
    return Helpers


@pytest.fixture
def make_runner(tmp_path: Path) -> Iterator[Callable[..., Any]]:
    """Real TableRunners on temp SQLite files, stopped at the end of the test."""
    from table_service.table.runner import TableRunner

    runners: list[Any] = []

    def build(name: str = "table", **kwargs: Any) -> Any:
        r = TableRunner(tmp_path / f"{name}.sqlite3", **kwargs).start()
        runners.append(r)
        return r

    yield build
    for r in runners:
        r.stop()


@pytest.fixture
def runner(make_runner: Callable[..., Any]) -> Any:
    return make_runner()


@pytest.fixture
def app(make_app: Callable[..., Any], runner: Any) -> Any:
    """An app serving one real table, id "1"."""
    return make_app(TABLES={"1": runner})


@pytest.fixture
def client(app: Any) -> Any:
    return app.test_client()


def csrf_of(client: Any) -> str:
    return client.get("/auth/whoami").get_json()["csrf_token"]


def login(client: Any, name: str, password: str = PASSWORD) -> Any:
    """Log ``client`` in through the real form (with its CSRF token); returns the response."""
    token = csrf_of(client)
    return client.post("/auth/login", data={"username": name, "password": password, "csrf_token": token})


def post_json(client: Any, url: str, body: Any) -> Any:
    """POST JSON with the session's CSRF header, as the panel's script does."""
    return client.post(url, json=body, headers={"X-CSRF-Token": csrf_of(client)})


@pytest.fixture
def serve_app() -> Iterator[Callable[[Any], Any]]:
    """Serve apps with the real cheroot server on free ports; stopped at the end of the test."""
    from table_service.web.server import serve

    handles: list[Any] = []

    def start(app: Any) -> Any:
        handle = serve(app, "127.0.0.1", 0)
        handles.append(handle)
        return handle

    yield start
    for handle in handles:
        handle.stop()


def session_cookie(client: Any) -> str:
    """The test client's session cookie as a ``Cookie`` header value, for raw HTTP clients."""
    cookie = client.get_cookie("guandan_session")
    assert cookie is not None, "log in first"
    return f"guandan_session={cookie.value}"


@pytest.fixture(scope="session")
def laid_out_deck() -> Any:
    """A camera frame of the 54 anglo faces laid out in rows for enrolment, with the first card's
    two indices rubbed off: a card the reader cannot name whatever its skill, so the panel's
    picture question is always there to answer (a good reader names every clean card)."""
    from vision.cards import ALL_CARDS
    from vision.geometry import default_layout
    from vision.synth import CameraView, LooseCard, TableRenderer, TableScene

    view = CameraView(size=(2200, 1900), px_per_mm=2.0, tilt_px=25, rotation_deg=1.0, seed=3)
    loose = [LooseCard(c, *laid_out_at(i), 0.0) for i, c in enumerate(ALL_CARDS)]
    renderer = TableRenderer(default_layout(), "anglo", view, seed=11, worn=ALL_CARDS[:1])
    return renderer.render(TableScene({}, (), loose), seed=1)
