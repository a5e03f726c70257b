"""What runs the reader's networks (vision.cardnet.nets): ONNX Runtime where installed, OpenCV otherwise,
with the same outputs; a wrong runtime or a missing model file is refused in words."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.cardnet import nets
from vision.cardnet.detector import detect
from vision.cardnet.prep import at_detector_scale, zone_to_input
from vision.synth import render_zone


def test_the_detector_finds_the_same_corners_on_every_runtime():
    """The heatmap, offsets and cover from ONNX Runtime equal both OpenCV engines' (a zone whose size is
    no multiple of anything, so the padding is exercised), and the corners found are the cards'."""
    z = render_zone(["Qh", "7s", "Tc", "3d"], "tigullio", px_per_mm=2.7, seed=11)
    x = zone_to_input(at_detector_scale(z.image, 2.7))
    shipped = nets.detector(x)
    assert nets.detector.ran_by == "onnxruntime" and shipped.shape[:2] == (1, 4)
    for engine in (cv2.dnn.ENGINE_AUTO, cv2.dnn.ENGINE_CLASSIC):
        other = nets.Runner(nets.DETECTOR_PATH, engine, runtime="opencv")
        assert np.allclose(shipped, other(x), rtol=1e-4, atol=1e-4) and other.ran_by == "opencv"
    truth = [z.to_image(p.to_scene(np.array([[0.0, 0.0]])))[0] for p in z.placements]
    found = detect(z.image, 2.7).corners
    for tx, ty in truth:
        assert min(np.hypot(c.x - tx, c.y - ty) for c in found) < 2.0 * 2.7  # within 2 mm


def test_an_unknown_runtime_is_refused_at_once_in_both_languages():
    with pytest.raises(ValueError, match="未知的运行方式.*unknown runtime 'cuda'"):
        nets.Runner(nets.EMBED_PATH, cv2.dnn.ENGINE_CLASSIC, runtime="cuda")


@pytest.mark.parametrize("runtime", nets.RUNTIMES)
def test_a_missing_model_file_says_to_reinstall_on_either_runtime(tmp_path: Path, runtime: str):
    runner = nets.Runner(tmp_path / "gone.onnx", cv2.dnn.ENGINE_CLASSIC, runtime=runtime)
    with pytest.raises(FileNotFoundError, match="找不到识牌模型.*reinstall the package"):
        runner(np.zeros((1, 3, 90, 50), np.float32))
    assert runner.ran_by is None
