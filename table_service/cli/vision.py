"""``guandan-table vision …``: vision's own commands, given the table's camera for ``enroll --camera``.

The frames of ``vision enroll --camera`` come from the camera that table.toml names; reading the
whole table.toml is this layer's job, so vision's command line receives the reader from here.
"""

from __future__ import annotations

import argparse

import numpy as np

from hardware.sources import open_source
from table_service.table.config import load_service_config
from vision.cli import register as register_vision


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add the ``vision`` sub-commands, with the table's camera for ``enroll --camera`` and the table's
    deck file for ``enroll --config``."""
    register_vision(subparsers, camera_frames=camera_frames, table_enrollment=table_enrollment)


def table_enrollment(config_path: str) -> str:
    """The deck file the table of ``config_path`` reads at start (``[vision] enrollment``, else
    ``<data_dir>/deck-enrollment.npz``): where ``vision enroll --config`` saves without ``--out``.
    Neither the devices nor the ``[vision]`` files are required: the file may be the one being made."""
    return str(load_service_config(config_path, check_devices=False, check_files=False).enrollment_file)


def camera_frames(config_path: str, count: int) -> list[np.ndarray]:
    """``count`` frames from the table's camera (``[camera]`` of the config), one per deck laid out."""
    cfg = load_service_config(config_path)
    source = open_source(cfg.hardware.camera)
    if source is None:
        raise ValueError("配置中没有摄像头 / the config has no camera ([camera] source = \"none\")")
    frames = []
    try:
        for k in range(count):
            input(f"请把第 {k + 1} 副牌正面朝上成行摆好，按回车拍照 / lay deck {k + 1} face up in rows, "
                  "then press Enter: ")
            got = source.read(timeout=10.0)
            if got is None:
                raise ValueError("摄像头没有画面 / no frame from the camera within 10 s")
            frames.append(got[1])
    finally:
        source.close()
    return frames
