"""A login limiter that cannot limit is refused when built, and one that reaches ``retry_after`` with a
limit under 1 anyway locks after one failure instead of crashing (audit 26: ``LOGIN_MAX_FAILURES = 0``
made ``q[len(q) - 0]`` index an empty deque and every ``POST /auth/login`` answered 500)."""

from __future__ import annotations

import math

import pytest

from table_service.web.security import LoginLimiter
from table_service.web.tables import web_state


@pytest.mark.parametrize(("failures", "window"), [(0, 60.0), (-1, 60.0), (True, 60.0), (5, 0.0), (5, -1.0),
                                                  (5, math.inf), (5, math.nan)])
def test_a_limiter_that_cannot_limit_is_refused(failures, window):
    with pytest.raises(ValueError, match="/"):
        LoginLimiter(failures, window)


@pytest.mark.parametrize("bad", [0, -3])
def test_retry_after_with_a_bad_limit_locks_after_one_failure_not_a_crash(bad):
    now = [100.0]
    lim = LoginLimiter(5, 60.0, clock=lambda: now[0])
    lim.max_failures = bad  # reached anyway (changed after it was built)
    assert lim.retry_after("1.2.3.4", "rita") == 0.0  # was IndexError: deque index out of range
    lim.failed("1.2.3.4", "rita")
    assert lim.retry_after("1.2.3.4", "rita") == 60.0
    by_name, by_address = lim.lockouts()
    assert by_name["rita"] == (1, 60.0) and by_address["1.2.3.4"] == (1, 60.0)
    now[0] = 161.0
    assert lim.retry_after("1.2.3.4", "rita") == 0.0


def test_a_login_reaching_a_bad_limit_is_answered_not_a_500(make_app, h):
    app = make_app()
    web_state(app).limiter.max_failures = 0
    client = app.test_client()
    assert h.login(client, "rita").status_code == 302  # no failure yet: allowed
    client = app.test_client()
    assert h.login(client, "chen", "wrong-password-1").status_code == 401
    assert h.login(client, "chen").status_code == 429  # locked after the one failure
