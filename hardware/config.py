"""``table.toml``: which device of the table is driven by which backend, and how.

The file is read with :mod:`tomllib` and checked in full before anything is opened, so a typo is
reported at ``guandan-table config check`` time with every problem listed at once, rather than
as a half-started table at the first match.  See ``examples/*.toml`` for annotated files.
What a checked file says (the dataclasses, the device kinds and the values each key may take)
is :mod:`hardware.config_model`; this module only reads the file and holds it to them.

Layout (every section but ``seats`` is optional)::

    table_id = "T07"
    data_dir = "data"                  # relative to the config file
    [seats]                            # all four seats, with the players' names
    E = "张三"  S = "李四"  W = "王五"  N = "赵六"
    [devices]                          # backend per logical device kind
    default = "screen"                 # screen | gpio | sim | none (without [devices]: all sim)
    status_led = "gpio"
    [screen]
    port = "/dev/ttyACM0"              # or url = "socket://host:port", "loop://"
    [gpio]
    debounce_ms = 20
    [gpio.pins]                        # BCM numbers
    status_led = 18
    [gpio.pins.E]
    report_button = 5
    countdown = { clk = 20, dio = 21 }
    [camera]
    source = "device"                  # device | file | folder | synthetic | none
    device = "/dev/video0"
"""

from __future__ import annotations

import importlib.util
import os
import re
import stat
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from firmware_bridge.firmware.wire import SEATS
from hardware.config_checker import ConfigChecker, did_you_mean
from hardware.config_model import (
    BACKENDS,
    CAMERA_BACKENDS,
    CAMERA_SOURCES,
    DEVICE_KINDS,
    ID_SEGMENT_RE,
    ID_SEGMENT_RULE,
    LENSES,
    SCREEN_KINDS,
    SEAT_DEVICE_KINDS,
    TABLE_DEVICE_KINDS,
    CameraConfig,
    DisplayPins,
    GpioConfig,
    ScreenConfig,
    TableConfig,
)
from hardware.errors import CameraError, ConfigError, not_regular_file
from hardware.renderer_spec import renderer_factory

#: URL schemes ``serial.serial_for_url`` understands (the port is then not a file to check).
SERIAL_URL_SCHEMES: tuple[str, ...] = ("loop", "socket", "rfc2217", "spy", "alt", "hwgrep", "cp2110")
#: BCM GPIO numbers on the 40-pin header.
BCM_PINS = range(0, 28)
#: BCM 0/1 are the HAT ID EEPROM bus; usable, but a likely mistake.
RESERVED_PINS = {0: "ID_SD", 1: "ID_SC"}
#: The highest /dev/videoN Linux numbers (its V4L2 core allows 256 video nodes).
MAX_VIDEO_INDEX = 255

#: The keys of ``[screen]``, ``[gpio]`` and ``[camera]`` (``[devices]``, ``[gpio.pins]`` and ``[seats]``
#: take the device kinds and seats of :mod:`hardware.config_model`). Named here so that
#: docs/config.md, the reference of every table.toml key, is held to them by tests/test_docs_sync.py.
SCREEN_KEYS: tuple[str, ...] = ("port", "url", "connect_timeout_s")
GPIO_KEYS: tuple[str, ...] = ("pins", "debounce_ms", "button_pull_up", "lamp_active_high", "display_brightness",
                              "pin_factory", "blink_on_s", "blink_off_s")
CAMERA_KEYS: tuple[str, ...] = ("source", "device", "path", "width", "height", "fps", "exposure", "fourcc",
                                "reconnect_s", "loop", "realtime", "renderer", "backend", "camera_num", "lores_width",
                                "lores_height", "mount_height_mm", "lens", "hfov_deg")


# --------------------------------------------------------------------------------------------
# helpers

def _split_url(value: str) -> tuple[str | None, str]:
    m = re.match(r"^([a-z0-9+]+)://", value)
    return (m.group(1), value) if m else (None, value)


def _ports_hint() -> str:
    found = _existing_serial_ports()
    return f"；现有串口：{', '.join(found)} / existing ports: {', '.join(found)}" if found else "；未发现任何串口 / no serial ports found"


def _existing_serial_ports() -> list[str]:
    try:
        from serial.tools import list_ports
    except ImportError:  # pragma: no cover - pyserial is a dependency
        return []
    return sorted(p.device for p in list_ports.comports())


# --------------------------------------------------------------------------------------------
# sections


def _parse_seats(c: ConfigChecker, data: Mapping[str, Any]) -> dict[str, str]:
    if "seats" not in data:
        c.error("缺少 [seats] 表（四个座位 E S W N 的名字） / missing [seats] table (names of seats E S W N)")
        return {s: s for s in SEATS}
    seats = c.table(data, "seats", "seats")
    c.keys(seats, SEATS, "[seats]")
    names: dict[str, str] = {}
    for seat in SEATS:
        if seat not in seats:
            c.error(f"[seats] 缺少座位 {seat} / seat {seat} missing from [seats] (need all of E S W N)")
            names[seat] = seat
            continue
        name = seats[seat]
        if not isinstance(name, str) or not name.strip():
            c.error(f"[seats].{seat} 应为非空字符串，收到 {name!r} / must be a non-empty name, got {name!r}")
            names[seat] = seat
        else:
            names[seat] = name.strip()
    return names


def _parse_backends(c: ConfigChecker, data: Mapping[str, Any]) -> dict[str, str]:
    devices = c.table(data, "devices", "devices")
    c.keys(devices, ("default", *DEVICE_KINDS), "[devices]")

    def unknown(key: str, value: Any) -> None:
        c.error(
            f"[devices].{key} = {value!r}: 未知后端 / unknown backend"
            f"{did_you_mean(str(value), BACKENDS)}；可用：{', '.join(BACKENDS)} / allowed: {', '.join(BACKENDS)}"
        )

    default = devices.get("default", "sim")
    if default not in BACKENDS:  # said once, not once for every kind that takes it
        unknown("default", default)
        default = "none"
    backends: dict[str, str] = {}
    for kind in DEVICE_KINDS:
        value = devices.get(kind, default)
        if value not in BACKENDS:
            unknown(kind, value)
            value = "none"
        if value == "screen" and kind not in SCREEN_KINDS:
            c.error(
                f"[devices].{kind} = 'screen': 隔板屏控制器没有状态灯，请用 gpio 或 sim / the screen "
                "controller has no status LED; use gpio or sim"
            )
            value = "none"
        backends[kind] = value
    return backends


def _parse_screen(c: ConfigChecker, data: Mapping[str, Any], needed: bool, check_devices: bool) -> ScreenConfig | None:
    screen = c.table(data, "screen", "screen")
    c.keys(screen, SCREEN_KEYS, "[screen]")
    port = c.typed(screen, "port", str, "[screen]")
    url = c.typed(screen, "url", str, "[screen]")
    timeout = c.number(screen, "connect_timeout_s", "[screen]", 5.0, 0, 600)
    if not needed:
        if screen:
            c.warnings.append("[screen] 已配置但没有设备使用 screen 后端 / [screen] is set but no device uses it")
        return None
    if port and url:
        c.error("[screen] 只能设 port 或 url 之一 / set either port or url, not both")
        return None
    if not port and not url:
        c.error(
            "有设备使用 screen 后端，但 [screen] 没有 port 或 url / devices use the screen backend but "
            "[screen] has neither port nor url"
        )
        return None
    if url:
        scheme, _ = _split_url(url)
        if scheme is None:
            # A bare path given as url: treat it as a port.
            port, url = url, None
        elif scheme not in SERIAL_URL_SCHEMES:
            c.error(
                f"[screen].url 的协议 '{scheme}' 不受支持 / unsupported URL scheme '{scheme}'"
                f"{did_you_mean(scheme, SERIAL_URL_SCHEMES)}；"
                f"可用：{', '.join(SERIAL_URL_SCHEMES)} / allowed: {', '.join(SERIAL_URL_SCHEMES)}"
            )
            return None
        else:
            problem = _url_problem(url, scheme, check_devices)
            if problem:
                c.error(f"[screen].url = {url!r}: 无法使用（{problem}） / cannot be used: {problem}")
                return None
            return ScreenConfig(url=url, is_port=False, connect_timeout_s=float(timeout))
    assert port is not None
    if check_devices:
        if not os.path.exists(port):
            c.error(f"[screen].port 串口 {port} 不存在 / serial port {port} does not exist{_ports_hint()}")
        elif what := _not_a_serial_device(port):
            # Accepted before, then every selftest step failed with "Inappropriate ioctl".
            c.error(f"[screen].port {port} 不是串口设备（{what[0]}） / {port} is not a serial port "
                    f"({what[1]}){_ports_hint()}")
    return ScreenConfig(url=port, is_port=True, connect_timeout_s=float(timeout))


def _url_problem(url: str, scheme: str, check_devices: bool) -> str | None:
    """Why pyserial would refuse ``url`` when the link opens it (``socket://host`` without a port,
    ``loop://?foo=1``), read the way it reads it, without opening anything; None when it reads.
    Such a URL passed ``config check`` and then failed at every reconnect as a port error."""
    if scheme == "hwgrep" and not check_devices:
        return None  # it searches this machine's ports: not for a file written for another machine
    import serial

    try:
        inst = serial.serial_for_url(url, do_not_open=True)
        parse = getattr(inst, "from_url", None)
        if parse is not None:
            parse(url)
    except Exception as exc:  # pyserial raises ValueError, KeyError, TypeError, SerialException alike
        said = str(exc)[:120] if isinstance(exc, ValueError | serial.SerialException) else ""
        return ("地址不完整或含未知选项（如 socket://主机:端口、rfc2217://主机:端口、loop://） / the address is "
                "incomplete or has an unknown option (e.g. socket://host:port, rfc2217://host:port, loop://)"
                + (f": {said}" if said else ""))
    return None


#: Character devices that are never a serial port (a placeholder left in, or a path mistyped).
_NOT_SERIAL_DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom")


def _not_a_serial_device(path: str) -> tuple[str, str] | None:
    """Why ``path`` (which exists) cannot be a serial port, in Chinese and English, or ``None``: a
    serial port is a character device, and not one of :data:`_NOT_SERIAL_DEVICES`. Looked at with
    ``stat`` only: opening a USB serial port resets the board behind it."""
    try:
        st = os.stat(path)
    except OSError as exc:
        return "无法读取", f"cannot be read: {exc.strerror or exc}"
    if stat.S_ISDIR(st.st_mode):
        return "是文件夹", "a folder"
    if stat.S_ISREG(st.st_mode):
        return "是普通文件", "a regular file"
    if not stat.S_ISCHR(st.st_mode):
        return "不是字符设备", "not a character device"
    for name in _NOT_SERIAL_DEVICES:
        try:
            if os.stat(name).st_rdev == st.st_rdev:
                return f"是 {name}", f"it is {name}"
        except OSError:
            continue
    return None


def _pin(c: ConfigChecker, value: Any, where: str) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int):
        c.error(f"{where} 应为 BCM 引脚号（整数），收到 {value!r} / must be a BCM pin number, got {value!r}")
        return None
    if value not in BCM_PINS:
        c.error(f"{where} = {value}: BCM 引脚应在 0–27 / BCM pin must be 0–27")
        return None
    if value in RESERVED_PINS:
        c.warnings.append(
            f"{where} = {value} ({RESERVED_PINS[value]}) 是 HAT EEPROM 引脚 / is the HAT EEPROM bus pin"
        )
    return value


def _parse_gpio(c: ConfigChecker, data: Mapping[str, Any], backends: Mapping[str, str]) -> GpioConfig:
    gpio = c.table(data, "gpio", "gpio")
    c.keys(gpio, GPIO_KEYS, "[gpio]")
    used = [k for k, b in backends.items() if b == "gpio"]
    if gpio and not used:
        c.warnings.append("[gpio] 已配置但没有设备使用 gpio 后端 / [gpio] is set but no device uses it")
    debounce = float(c.number(gpio, "debounce_ms", "[gpio]", 20.0, 0, 500))
    brightness = int(c.number(gpio, "display_brightness", "[gpio]", 4, 0, 7, int))
    factory = c.typed(gpio, "pin_factory", str, "[gpio]")
    factories = ("lgpio", "rpigpio", "pigpio", "native", "mock")
    if factory is not None and factory not in factories:
        c.error(f"[gpio].pin_factory = {factory!r}: 未知 / unknown{did_you_mean(factory, factories)}；"
                f"可用：{', '.join(factories)} / allowed: {', '.join(factories)}")
        factory = None

    pins_tbl = c.table(gpio, "pins", "gpio.pins")
    c.keys(pins_tbl, (*TABLE_DEVICE_KINDS, *SEATS), "[gpio.pins]")
    pins: dict[tuple[str | None, str], int] = {}
    displays: dict[str, DisplayPins] = {}
    owners: dict[int, list[str]] = {}

    def own(pin: int | None, label: str) -> None:
        if pin is not None:
            owners.setdefault(pin, []).append(label)

    for kind in TABLE_DEVICE_KINDS:
        where = f"[gpio.pins].{kind}"
        if kind in pins_tbl:
            pin = _pin(c, pins_tbl[kind], where)
            if pin is not None:
                pins[(None, kind)] = pin
                own(pin, where)
            if backends[kind] != "gpio":
                c.warnings.append(f"{where} 已设但 {kind} 用 {backends[kind]} 后端 / set but {kind} is not on gpio")
        elif backends[kind] == "gpio":
            c.error(f"{kind} 用 gpio 后端但缺少 {where} / {kind} is on gpio but {where} is missing")
    for seat in SEATS:
        seat_tbl = c.table(pins_tbl, seat, f"gpio.pins.{seat}") if seat in pins_tbl else {}
        c.keys(seat_tbl, SEAT_DEVICE_KINDS, f"[gpio.pins.{seat}]")
        for kind in SEAT_DEVICE_KINDS:
            where = f"[gpio.pins.{seat}].{kind}"
            if kind not in seat_tbl:
                if backends[kind] == "gpio":
                    c.error(f"{kind} 用 gpio 后端但缺少 {where} / {kind} is on gpio but {where} is missing")
                continue
            if backends[kind] != "gpio":
                c.warnings.append(f"{where} 已设但 {kind} 用 {backends[kind]} 后端 / set but {kind} is not on gpio")
            value = seat_tbl[kind]
            if kind == "countdown":
                if not isinstance(value, dict):
                    c.error(f"{where} 应为 {{ clk = N, dio = M }} / must be an inline table {{ clk = N, dio = M }}")
                    continue
                c.keys(value, ("clk", "dio"), where)
                clk = _pin(c, value.get("clk"), f"{where}.clk") if "clk" in value else None
                dio = _pin(c, value.get("dio"), f"{where}.dio") if "dio" in value else None
                if "clk" not in value or "dio" not in value:
                    c.error(f"{where} 需要 clk 和 dio 两个引脚 / needs both clk and dio")
                own(clk, f"{where}.clk")
                own(dio, f"{where}.dio")
                if clk is not None and dio is not None:
                    displays[seat] = DisplayPins(clk, dio)
            else:
                pin = _pin(c, value, where)
                if pin is not None:
                    pins[(seat, kind)] = pin
                    own(pin, where)
    for pin, labels in sorted(owners.items()):
        # TM1637s may share CLK (each listens only after a start on its own DIO): that is wiring, not a clash.
        if len(labels) > 1 and not all(lbl.endswith(".countdown.clk") for lbl in labels):
            c.error(f"BCM {pin} 被重复使用：{', '.join(labels)} / pin used twice: {', '.join(labels)}")
    return GpioConfig(
        pins=pins,
        displays=displays,
        debounce_ms=debounce,
        button_pull_up=bool(c.typed(gpio, "button_pull_up", bool, "[gpio]", True)),
        lamp_active_high=bool(c.typed(gpio, "lamp_active_high", bool, "[gpio]", True)),
        display_brightness=brightness,
        pin_factory=factory,
        blink_on_s=float(c.number(gpio, "blink_on_s", "[gpio]", 0.5, 0.01, 60)),
        blink_off_s=float(c.number(gpio, "blink_off_s", "[gpio]", 0.5, 0.01, 60)),
    )


def _parse_camera(c: ConfigChecker, data: Mapping[str, Any], base: Path, check_devices: bool) -> CameraConfig:
    cam = c.table(data, "camera", "camera")
    c.keys(cam, CAMERA_KEYS, "[camera]")
    backend = c.typed(cam, "backend", str, "[camera]", "opencv")
    if backend not in CAMERA_BACKENDS:
        c.error(f"[camera].backend = {backend!r}: 未知 / unknown{did_you_mean(backend, CAMERA_BACKENDS)}；"
                f"可用：{', '.join(CAMERA_BACKENDS)} / allowed: {', '.join(CAMERA_BACKENDS)}")
        backend = "opencv"
    source = c.typed(cam, "source", str, "[camera]", "device" if backend == "picamera2" else "none")
    if backend == "picamera2" and source != "device":
        c.error(f"[camera].backend = 'picamera2' 只用于 source = 'device'（现为 {source!r}） / "
                f"is for source = 'device' (not {source!r})")
    if source not in CAMERA_SOURCES:
        c.error(f"[camera].source = {source!r}: 未知 / unknown{did_you_mean(source, CAMERA_SOURCES)}；"
                f"可用：{', '.join(CAMERA_SOURCES)} / allowed: {', '.join(CAMERA_SOURCES)}")
        source = "none"
    width = int(c.typed(cam, "width", int, "[camera]", 1920))
    height = int(c.typed(cam, "height", int, "[camera]", 1080))
    fps = float(c.typed(cam, "fps", float, "[camera]", 15.0))
    if not (16 <= width <= 8192 and 16 <= height <= 8192):
        c.error(f"[camera] 分辨率 {width}x{height} 不合理 / implausible resolution {width}x{height}")
    if not 0 < fps <= 240:
        c.error(f"[camera].fps = {fps}: 应在 0–240 / must be in (0, 240]")
    fourcc = c.typed(cam, "fourcc", str, "[camera]", "MJPG")
    if fourcc is not None and len(fourcc) != 4:
        c.error(f"[camera].fourcc = {fourcc!r}: 需 4 个字符 / must be 4 characters, e.g. 'MJPG'")
    device = c.typed(cam, "device", (str, int), "[camera]")
    raw_path = c.typed(cam, "path", str, "[camera]")
    path = (base / raw_path) if raw_path else None
    if source == "device" and backend == "picamera2":
        pass  # libcamera numbers its cameras (camera_num); there is no /dev/video path to check
    elif source == "device":
        if device is None:
            c.error("[camera].source = 'device' 需要 device（如 '/dev/video0' 或 0） / needs device, "
                    "e.g. '/dev/video0' or 0")
        elif isinstance(device, int) and not 0 <= device <= MAX_VIDEO_INDEX:
            # Checked offline too: -1 or 2**63-1 passed `config check --offline` and failed on the Pi.
            c.error(f"[camera].device = {device}: 摄像头编号须为 0–{MAX_VIDEO_INDEX}（/dev/videoN） / a camera index "
                    f"is 0-{MAX_VIDEO_INDEX} (/dev/videoN)")
        elif check_devices:
            dev_path = f"/dev/video{device}" if isinstance(device, int) else device
            if not os.path.exists(dev_path):
                present = sorted(str(p) for p in Path("/dev").glob("video*"))
                hint = f"；现有：{', '.join(present)} / present: {', '.join(present)}" if present else "；未发现摄像头 / no cameras found"
                c.error(f"[camera].device 摄像头 {dev_path} 不存在 / camera {dev_path} does not exist{hint}")
    elif source in ("file", "folder"):
        if path is None:
            c.error(f"[camera].source = '{source}' 需要 path / needs path")
        elif check_devices:
            if source == "file" and not path.is_file():
                c.error(f"[camera].path 视频文件 {path} 不存在 / video file {path} does not exist")
            if source == "folder" and not path.is_dir():
                c.error(f"[camera].path 图片文件夹 {path} 不存在 / image folder {path} does not exist")
    renderer = c.typed(cam, "renderer", str, "[camera]")
    if renderer is not None and ":" not in renderer:
        c.error(f"[camera].renderer = {renderer!r}: 格式应为 'module:callable' / must be 'module:callable'")
    elif renderer is not None and check_devices and not _module_exists(renderer.partition(":")[0]):
        # Found without importing the module itself (a dotted name imports its parent packages only).
        c.error(f"[camera].renderer = {renderer!r}: 找不到模块 {renderer.partition(':')[0]!r} / "
                f"no module {renderer.partition(':')[0]!r} is installed")
    elif renderer is not None and check_devices:
        try:  # the module is there: what it names must be a factory(width, height), as the camera calls it
            renderer_factory(renderer)
        except CameraError as exc:
            c.error(f"[camera].renderer: {exc}")
    exposure = c.number(cam, "exposure", "[camera]", None, -100, 1_000_000)  # driver units (V4L2 or log2)
    lores = (int(c.typed(cam, "lores_width", int, "[camera]", 640)), int(c.typed(cam, "lores_height", int, "[camera]", 360)))
    if backend == "picamera2" and not (64 <= lores[0] <= width and 64 <= lores[1] <= height):
        c.error(f"[camera] 小画面 {lores[0]}x{lores[1]} 应在 64 与主画面（{width}x{height}）之间 / "
                f"lores stream must be between 64 px "
                f"and the main stream ({width}x{height})")
    mount = c.number(cam, "mount_height_mm", "[camera]", None, 200, 5000)  # lens above the table top
    lens = c.typed(cam, "lens", str, "[camera]")
    if lens is not None and lens not in LENSES:
        c.error(f"[camera].lens = {lens!r}: 未知 / unknown{did_you_mean(lens, tuple(LENSES))}；"
                f"可用：{', '.join(LENSES)}（或给出 hfov_deg） / "
                f"allowed: {', '.join(LENSES)} (或 hfov_deg / or give hfov_deg)")
    hfov = c.number(cam, "hfov_deg", "[camera]", None, 10, 170)
    return CameraConfig(
        backend=backend,
        camera_num=int(c.number(cam, "camera_num", "[camera]", 0, 0, 15, int)),
        lores=lores,
        size_given="width" in cam or "height" in cam,
        mount_height_mm=None if mount is None else float(mount),
        lens=lens,
        hfov_deg=None if hfov is None else float(hfov),
        source=source,
        device=device,
        path=path,
        width=width,
        height=height,
        fps=fps,
        exposure=None if exposure is None else float(exposure),
        fourcc=fourcc,
        reconnect_s=float(c.number(cam, "reconnect_s", "[camera]", 2.0, 0.1, 3600)),
        loop=bool(c.typed(cam, "loop", bool, "[camera]", False)),
        realtime=bool(c.typed(cam, "realtime", bool, "[camera]", True)),
        renderer=renderer,
    )


# --------------------------------------------------------------------------------------------
# entry points

TOP_KEYS = ("table_id", "data_dir", "seats", "devices", "screen", "gpio", "camera")


def parse_config(data: Mapping[str, Any], *, base_dir: str | os.PathLike[str] = ".",
                 check_devices: bool = True, path: str | os.PathLike[str] | None = None,
                 other_sections: tuple[str, ...] = ()) -> TableConfig:
    """Validate an already-parsed TOML document.

    :param base_dir: where relative paths (``data_dir``, camera ``path``) are anchored — the
        config file's folder, so a table folder can be moved as a whole.
    :param check_devices: also check that the serial port, camera device and files exist. Off for
        checking a file written for another machine.
    :param other_sections: the sections of table.toml its caller reads (the service's, taken out of
        ``data`` before): named with :data:`TOP_KEYS` in an unknown key's hint and "allowed" list.
    :raises ConfigError: listing every problem found.
    """
    c = ConfigChecker()
    base = Path(base_dir)
    c.keys(data, TOP_KEYS + tuple(other_sections), "table.toml")
    table_id = c.typed(data, "table_id", str, "table.toml")
    if table_id is None:
        if "table_id" not in data:
            c.error("缺少 table_id / missing table_id (e.g. table_id = \"T01\")")
        table_id = "?"
    elif not ID_SEGMENT_RE.match(table_id):  # the rule attach_table and the hub hold the id to
        c.error(f"table_id = {table_id!r}: {ID_SEGMENT_RULE}")
    seat_names = _parse_seats(c, data)
    backends = _parse_backends(c, data)
    screen = _parse_screen(c, data, any(b == "screen" for b in backends.values()), check_devices)
    gpio = _parse_gpio(c, data, backends)
    camera = _parse_camera(c, data, base, check_devices)
    data_dir_raw = c.typed(data, "data_dir", str, "table.toml", "data")
    if not data_dir_raw.strip():  # Path("") is the config's own folder: the table's log among its config files
        c.error('data_dir 为空 / data_dir is empty: give the folder for the table\'s log (default "data")')
        data_dir_raw = "data"
    data_dir = Path(data_dir_raw)
    if not data_dir.is_absolute():
        data_dir = base / data_dir
    if check_devices and data_dir.exists() and not data_dir.is_dir():
        c.error(f"data_dir {data_dir} 不是文件夹 / is not a folder")
    shown = str(path) if path is not None else None
    if c.problems:
        raise ConfigError(c.problems, shown)
    return TableConfig(
        table_id=table_id,
        seat_names=seat_names,
        data_dir=data_dir,
        backends=backends,
        screen=screen,
        gpio=gpio,
        camera=camera,
        path=Path(path) if path is not None else None,
        warnings=tuple(c.warnings),
    )


def load_config(path: str | os.PathLike[str], *, check_devices: bool = True) -> TableConfig:
    """Read and validate ``table.toml``.

    :raises ConfigError: unreadable file, TOML syntax error (with line and column), or any
        validation problem — all of them, in one error.
    """
    p = Path(path)
    if (problem := not_regular_file(p)) is not None:
        raise ConfigError(problem)
    try:
        raw = p.read_bytes()
    except FileNotFoundError:
        raise ConfigError(f"配置文件不存在：{p} / config file not found: {p}") from None
    except OSError as exc:
        raise ConfigError(f"无法读取配置文件 {p}（{exc.strerror or exc}） / "
                          f"cannot read config file {p}: {exc.strerror or exc}") from None
    try:
        data = tomllib.loads(raw.decode("utf-8-sig"))  # -sig: Notepad's BOM
    except UnicodeDecodeError as exc:
        raise ConfigError(f"不是 UTF-8 文本（第 {exc.start} 字节） / "
                          f"not UTF-8 text (byte {exc.start})", str(p)) from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"TOML 语法错误（{exc}） / TOML syntax error: {exc}", str(p)) from None
    return parse_config(data, base_dir=p.resolve().parent, check_devices=check_devices, path=p)


def _module_exists(name: str) -> bool:
    """Whether ``name`` is an importable module, found without running it (its parents are imported)."""
    try:
        return bool(name) and importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):  # a parent package missing, or an empty or relative name
        return False
