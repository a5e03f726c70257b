"""The panel's "recalibrate camera" (issue #27): a referee's POST reaches the table's camera pipeline;
a viewer may not; a table without a camera says so. The button is on the referee's page."""

from __future__ import annotations

from typing import Any


class Pipeline:
    """The part of ``CameraPipeline`` the panel uses (the pipeline itself: tests/service/test_picamera2_path.py)."""

    def __init__(self) -> None:
        self.asked = 0

    def recalibrate(self) -> None:
        self.asked += 1


def test_recalibrate_reaches_the_camera_pipeline(client: Any, runner: Any, h: Any) -> None:
    url = "/api/tables/1/camera/recalibrate"
    h.login(client, "rita")
    res = h.post_json(client, url, {})
    assert res.status_code == 409 and "no camera" in res.get_json()["error"]
    runner.camera_pipeline = pipe = Pipeline()
    h.login(client, "vera")
    assert h.post_json(client, url, {}).status_code == 403 and pipe.asked == 0  # a viewer may not
    h.login(client, "rita")
    res = h.post_json(client, url, {})
    assert res.status_code == 202 and res.get_json() == {"started": True} and pipe.asked == 1
    h.wait_for(lambda: any(e["type"] == "device_status_changed" and "recalibration asked by rita" in
                           (e["data"].get("detail") or "") for e in runner.events()))  # in the log, by whom
    page = client.get("/tables/1").get_data(as_text=True)
    assert "camera.js" in page


class LearningPipeline(Pipeline):
    """With the reader's "learn afresh" (the real one: tests/vision/test_learned.py)."""

    def __init__(self, learns: bool = True) -> None:
        super().__init__()
        self.learns, self.forgot = learns, 0

    def relearn(self) -> dict[str, int] | None:
        if not self.learns:
            return None
        self.forgot += 1
        return {"answers": 37, "sure": 400, "faces": 6}


def test_learn_afresh_reaches_the_reader_and_is_logged(client: Any, runner: Any, h: Any) -> None:
    url = "/api/tables/1/camera/relearn"
    h.login(client, "rita")
    res = h.post_json(client, url, {})
    assert res.status_code == 409 and "no camera" in res.get_json()["error"]
    runner.camera_pipeline = Pipeline()  # a camera whose pipeline cannot forget
    assert h.post_json(client, url, {}).status_code == 409
    runner.camera_pipeline = LearningPipeline(learns=False)
    res = h.post_json(client, url, {})
    assert res.status_code == 409 and "does not learn" in res.get_json()["error"]
    runner.camera_pipeline = pipe = LearningPipeline()
    h.login(client, "vera")
    assert h.post_json(client, url, {}).status_code == 403 and pipe.forgot == 0  # a viewer may not
    h.login(client, "rita")
    res = h.post_json(client, url, {})
    assert res.status_code == 200 and res.get_json() == {"forgot": {"answers": 37, "sure": 400, "faces": 6}}
    assert pipe.forgot == 1
    h.wait_for(lambda: any(e["type"] == "device_status_changed" and "learning started afresh by rita" in
                           (e["data"].get("detail") or "") for e in runner.events()))
