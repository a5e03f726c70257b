"""Small wording faults of the audit: leading zeros made ?after=000…001 "out of range", and the JSON
login's error had no "status" and was English only with the cookie lang=en."""

from __future__ import annotations


def test_leading_zeros_are_no_size(client, h):
    h.login(client, "vera")
    resp = client.get("/api/tables/1/events?after=00000000000000000001")
    assert resp.status_code == 200, resp.get_json()
    assert client.get("/api/tables/1/events?after=99999999999999999999").status_code == 400


def test_the_json_login_error_is_in_both_languages_with_its_status(client, h):
    client.set_cookie("lang", "en")
    resp = client.post("/auth/login", data={"username": "vera", "password": "wrong-one"},
                       headers={"Accept": "application/json", "X-CSRF-Token": h.csrf_of(client)})
    assert resp.status_code == 401
    body = resp.get_json()
    assert body["status"] == 401 and "用户名或密码错误" in body["error"] and "wrong user name" in body["error"]
