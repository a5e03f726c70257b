"""``guandan-table selftest``: walk through every device of a table and say which work.

A technician runs it when setting a table up: first the checks ``run`` makes of its files before it
starts (given by the table service: its event log, users database, clock file, panel address; read
only), so the test says whether the table will start as well as whether its devices work; then each
lamp lights in turn, each display counts down,
each button is asked for and must be pressed within a timeout, the buzzer sounds, and a camera frame
must show the four corner markers. What can be read back (a GPIO pin's level, a TM1637's ack, the
screen controller's reported state, a sim device) is checked; what cannot (a bulb that is blown
behind a driven pin) is left to the technician's eyes, and the table says so.

Tests and the demo drive it unattended: ``prompt`` is called before each button wait and may press
the button (a mock pin, the emulator's control API); sim buttons and buttons on mock pins are pressed
automatically because no one can press them by hand.
"""

from __future__ import annotations

import sys
import threading
import time
import unicodedata
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, TextIO

from firmware_bridge.firmware.wire import SEATS
from hardware.backends.sim import SimButton
from hardware.config_model import DEVICE_NAMES
from hardware.corner_markers import CORNER_MARKER_IDS, find_corner_markers
from hardware.table import TableDevices

STEPS: tuple[str, ...] = ("startup", "lamps", "displays", "buzzer", "buttons", "camera")

#: The start-up checks, from the layer above (hardware knows no event log): each ``(item, ok, detail)``,
#: the item and the detail said ``中文 / English``.
StartupChecks = Callable[[], Iterable[tuple[str, bool, str]]]


@dataclass(frozen=True)
class PlacementReading:
    """What the camera step says of the camera's placement (measured by the layer above)."""

    worst: float  # px/mm on the worst play zone
    description: str
    warnings: list[str] = field(default_factory=list)
    #: Appended to the camera step's detail, e.g. "< 2.5: too few to read reliably" (None: fine).
    verdict: str | None = None


PlacementMeter = Callable[[Any], PlacementReading]

KIND_NAMES = {**{k: DEVICE_NAMES[k] for k in ("report_lamp", "turn_lamp", "referee_lamp", "status_led", "countdown",
                                                "buzzer")}, "camera": "摄像头 / camera"}
BUTTON_NAMES = {"report": "报牌 / report", "pass": "过牌 / pass", "referee": "呼叫裁判 / call referee"}
SEAT_NAMES = {"E": "东 E", "S": "南 S", "W": "西 W", "N": "北 N"}

Prompt = Callable[[str, str], None]
#: Default for ``out``: whatever ``sys.stdout`` is when the test prints (not at import time).
_STDOUT = object()


@dataclass(frozen=True)
class CheckResult:
    """One line of the self-test table. ``ok`` is ``None`` for a check that was skipped."""

    step: str
    item: str
    ok: bool | None
    detail: str = ""

    @property
    def verdict(self) -> str:
        return {True: "通过 PASS", False: "失败 FAIL", None: "跳过 SKIP"}[self.ok]


@dataclass
class SelfTestReport:
    table_id: str
    results: list[CheckResult] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Passed: nothing failed (skips allowed)."""
        return not any(r.ok is False for r in self.results)

    def failed(self) -> list[CheckResult]:
        return [r for r in self.results if r.ok is False]

    def result(self, item: str) -> CheckResult:
        """The result of one item (by its label); :raises KeyError: no such item."""
        for r in self.results:
            if r.item == item:
                return r
        raise KeyError(item)

    def format(self) -> str:
        return format_table(self)


def _width(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _pad(text: str, width: int) -> str:
    return text + " " * max(0, width - _width(text))


def format_table(report: SelfTestReport) -> str:
    """The pass/fail table, aligned for CJK text in a terminal."""
    head = ("项目 / Item", "结果 / Result", "说明 / Detail")
    rows = [(r.item, r.verdict, r.detail) for r in report.results]
    w0 = max([_width(head[0])] + [_width(r[0]) for r in rows])
    w1 = max([_width(head[1])] + [_width(r[1]) for r in rows])
    lines = [f"{_pad(head[0], w0)}  {_pad(head[1], w1)}  {head[2]}", f"{'-' * w0}  {'-' * w1}  {'-' * 14}"]
    lines += [f"{_pad(a, w0)}  {_pad(b, w1)}  {c}".rstrip() for a, b, c in rows]
    n_fail = len(report.failed())
    n_pass = sum(1 for r in report.results if r.ok)
    n_skip = sum(1 for r in report.results if r.ok is None)
    summary = (f"桌 {report.table_id}: 通过 {n_pass}，失败 {n_fail}，跳过 {n_skip} / table {report.table_id}: "
               f"{n_pass} passed, {n_fail} failed, {n_skip} skipped — {'合格 OK' if report.ok else '不合格 NOT OK'}")
    return "\n".join([*lines, "", summary])


def _label(seat: str | None, kind: str) -> str:
    return f"{SEAT_NAMES[seat]} {KIND_NAMES[kind]}" if seat else KIND_NAMES[kind]


class SelfTest:
    """Runs the checks on an open :class:`~hardware.table.TableDevices`.

    :param lamp_s: how long each lamp stays lit (for the technician's eyes).
    :param countdown_from: each display counts down from this many seconds.
    :param displays_together: count all displays down at once (faster; tests) instead of in turn.
    :param button_timeout_s: how long to wait for each button.
    :param prompt: ``prompt(seat, button)`` before each button wait (default: print a request).
    :param auto_press: press sim buttons and buttons on gpiozero mock pins automatically (nobody
        can press those by hand); ignored when ``prompt`` is given.
    :param out: where progress and the table are printed (default ``sys.stdout``; ``None``: silent).
    :param marker_detector: ``detect(frame) -> {id: corners}`` for the camera step, from the layer
        above (the table service passes vision's calibration detector); default: OpenCV's own.
    :param startup_checks: the ``startup`` step's checks (:data:`StartupChecks`), from the layer above
        (the table service passes ``run``'s own, read only); None: the step lists nothing.
    """

    def __init__(self, table: TableDevices, *, steps: Iterable[str] = STEPS, lamp_s: float = 0.5,
                 countdown_from: int = 3, displays_together: bool = False, button_timeout_s: float = 15.0,
                 camera_timeout_s: float = 10.0, prompt: Prompt | None = None, auto_press: bool = True,
                 out: TextIO | None | object = _STDOUT,
                 marker_detector: Callable[[Any], Mapping[int, Any]] | None = None,
                 measure_placement: PlacementMeter | None = None,
                 startup_checks: StartupChecks | None = None) -> None:
        self.table = table
        self.startup_checks = startup_checks
        self.marker_detector = marker_detector
        #: px/mm over the play zones from a frame's corner markers, passed in by the table
        #: service (it knows the table's layout and lens; hardware does not); None: not measured.
        self.measure_placement = measure_placement
        self.steps = tuple(steps)
        unknown = set(self.steps) - set(STEPS)
        if unknown:
            raise ValueError(f"未知步骤：{', '.join(sorted(unknown))}；可用 {', '.join(STEPS)} / "
                             f"unknown self-test steps: {', '.join(sorted(unknown))}; "
                             f"use {', '.join(STEPS)}")
        self.lamp_s = lamp_s
        self.countdown_from = countdown_from
        self.displays_together = displays_together
        self.button_timeout_s = button_timeout_s
        self.camera_timeout_s = camera_timeout_s
        self.prompt = prompt
        self.auto_press = auto_press
        self.out = out
        self._pause = threading.Event()  # never set: an interruptible, visible pause

    def say(self, text: str) -> None:
        out = sys.stdout if self.out is _STDOUT else self.out
        if out is not None:
            print(text, file=out, flush=True)  # type: ignore[arg-type]

    def run(self) -> SelfTestReport:
        report = SelfTestReport(self.table.table_id)
        for step in STEPS:
            if step in self.steps:
                report.results.extend(getattr(self, f"check_{step}")())
        self.say("")
        self.say(report.format())
        return report

    def _unreachable(self, dev: object) -> str | None:
        """Why a device on the screen controller fails unchecked: the controller is not connected.

        Its lamps and displays cannot be read back then, and "no read-back, check by eye" passed
        every one of them (exit 0, "OK") with nothing plugged in; its buttons each waited out the
        whole timeout. None for other backends and a connected screen.
        """
        screen = getattr(self.table, "screen", None)
        if getattr(dev, "backend", None) != "screen" or screen is None or screen.is_connected:
            return None
        why = getattr(getattr(screen, "controller", None), "last_error", None)
        if not why:
            return "隔板屏控制器未连接 / screen controller not connected"
        # ``why`` is "中文 / English" itself: each half after its own language's words.
        why_zh, sep, why_en = str(why).partition(" / ")
        return f"隔板屏控制器未连接：{why_zh} / screen controller not connected: {why_en if sep else why_zh}"

    # -- start-up checks ---------------------------------------------------------------------

    def check_startup(self) -> list[CheckResult]:
        """``run``'s checks of its files and address, one line each: a table whose devices all work
        but whose event log is garbage does not start, and the technician asks both at once."""
        if self.startup_checks is None:
            return []
        self.say("== 启动检查（run 启动前所查，只读） / start-up checks (what run checks before it starts, read only) ==")
        try:
            return [CheckResult("startup", item, ok, detail) for item, ok, detail in self.startup_checks()]
        except Exception as exc:  # a check that broke is a table that may not start: said, not a traceback
            return [CheckResult("startup", "启动检查 / start-up checks", False, f"{type(exc).__name__}: {exc}")]

    # -- lamps -------------------------------------------------------------------------------

    def check_lamps(self) -> list[CheckResult]:
        self.say("== 指示灯逐个点亮 / lighting each lamp in turn ==")
        results = []
        for label, lamp in self.table.lamps():
            seat, _, kind = label.rpartition(".")
            item = _label(seat or None, kind)
            if lamp.backend == "none":
                results.append(CheckResult("lamps", item, None, "未配置 / not fitted"))
                continue
            if why := self._unreachable(lamp):
                results.append(CheckResult("lamps", item, False, why))
                continue
            self.say(f"  {item} …")
            problems = []
            try:
                lamp.on()
                if (got := lamp.read_back()) not in (None, "on"):
                    problems.append(f"点亮后读回 {got!r} / after on read back {got!r}")
                readable = lamp.read_back() is not None
                self._pause.wait(self.lamp_s)
                lamp.off()
                if (got := lamp.read_back()) not in (None, "off"):
                    problems.append(f"熄灭后读回 {got!r} / after off read back {got!r}")
            except Exception as exc:
                problems.append(f"{type(exc).__name__}: {exc}")
                readable = True
            if problems:
                results.append(CheckResult("lamps", item, False, "; ".join(problems)))
            else:
                detail = "开/关已读回 / on/off read back" if readable else "无法读回，请目视确认 / no read-back, check by eye"
                results.append(CheckResult("lamps", item, True, f"{lamp.backend}: {detail}"))
        return results

    # -- displays ----------------------------------------------------------------------------

    def _expected(self) -> list[str]:
        return [str(k).rjust(4) for k in range(self.countdown_from, -1, -1)]

    def _watch(self, displays: list[tuple[str, object]]) -> dict[str, list[str]]:
        """Poll what each display shows until all reach 0 (or the countdown plus slack runs out)."""
        seen: dict[str, list[str]] = {label: [] for label, _ in displays}
        deadline = time.monotonic() + self.countdown_from + 2.0
        final = str(0).rjust(4)
        while time.monotonic() < deadline:
            for label, d in displays:
                text = d.read_text()  # type: ignore[attr-defined]
                if text is not None and (not seen[label] or seen[label][-1] != text):
                    seen[label].append(text)
            if all(s and s[-1] == final for s in seen.values()):
                break
            self._pause.wait(0.02)
        return seen

    def _judge(self, label: str, display: object, seen: list[str]) -> CheckResult:
        seat, _, kind = label.partition(".")
        item = _label(seat, "countdown")
        error = getattr(display, "error", None)
        if error:
            return CheckResult("displays", item, False, error)
        if not seen:
            return CheckResult("displays", item, True,
                               f"{display.backend}: 无法读回，请目视确认 / no read-back, check by eye")  # type: ignore[attr-defined]
        it = iter(seen)
        if all(any(s == e for s in it) for e in self._expected()):
            shown = " ".join(s.strip() for s in seen)
            return CheckResult("displays", item, True, f"{display.backend}: {shown}")  # type: ignore[attr-defined]
        return CheckResult("displays", item, False,
                           f"倒计时不完整，显示了 {[s.strip() for s in seen]} / incomplete countdown: "
                           f"saw {[s.strip() for s in seen]}")

    def check_displays(self) -> list[CheckResult]:
        self.say(f"== 倒计时显示从 {self.countdown_from} 数到 0 / counting each display down ==")
        by_label: dict[str, CheckResult] = {}
        fitted = []
        for label, d in self.table.displays():
            if d.backend == "none":
                by_label[label] = CheckResult("displays", _label(label.partition(".")[0], "countdown"), None,
                                              "未配置 / not fitted")
            elif why := self._unreachable(d):
                by_label[label] = CheckResult("displays", _label(label.partition(".")[0], "countdown"), False, why)
            else:
                fitted.append((label, d))
        groups = [fitted] if self.displays_together else [[x] for x in fitted]
        for group in groups:
            for label, d in group:
                self.say(f"  {label} …")
                d.set_countdown(self.countdown_from)
            seen = self._watch(group)
            for label, d in group:
                by_label[label] = self._judge(label, d, seen[label])
                d.clear()
        return [by_label[label] for label, _ in self.table.displays()]

    # -- buzzer ------------------------------------------------------------------------------

    def check_buzzer(self) -> list[CheckResult]:
        buzzer = self.table.buzzer
        item = _label(None, "buzzer")
        if buzzer.backend == "none":
            return [CheckResult("buzzer", item, None, "未配置 / not fitted")]
        if why := self._unreachable(buzzer):
            return [CheckResult("buzzer", item, False, why)]
        self.say("== 蜂鸣器 / buzzer ==")
        try:
            buzzer.buzz(300)
        except Exception as exc:
            return [CheckResult("buzzer", item, False, f"{type(exc).__name__}: {exc}")]
        return [CheckResult("buzzer", item, True, f"{buzzer.backend}: 请确认听到 / check it was heard")]

    # -- buttons -----------------------------------------------------------------------------

    def _default_prompt(self, seat: str, button: str) -> None:
        name = self.table.seats[seat].name
        self.say(f"  请按 {SEAT_NAMES[seat]}（{name}）的「{BUTTON_NAMES[button].split(' / ')[0]}」按钮（{self.button_timeout_s:g} 秒内） / "
                 f"press {seat}'s {BUTTON_NAMES[button].split(' / ')[1]} button "
                 f"({self.button_timeout_s:g} s)")

    def check_buttons(self) -> list[CheckResult]:
        self.say("== 按钮 / buttons ==")
        results: list[CheckResult] = []
        present = {(s, b): dev for s, b, dev in self.table.buttons()}
        events, unsubscribe = self.table.event_queue()
        try:
            for seat in SEATS:
                for button in BUTTON_NAMES:
                    item = f"{SEAT_NAMES[seat]} {BUTTON_NAMES[button]}"
                    dev = present.get((seat, button))
                    if dev is None:
                        results.append(CheckResult("buttons", item, None, "未配置 / not fitted"))
                        continue
                    if why := self._unreachable(dev):
                        results.append(CheckResult("buttons", item, False, why))
                        continue
                    results.append(self._one_button(seat, button, item, dev, events))
        finally:
            unsubscribe()
        return results

    def _one_button(self, seat: str, button: str, item: str, dev: object, events: object) -> CheckResult:
        import queue

        assert isinstance(events, queue.Queue)
        while not events.empty():  # presses before the prompt do not count
            events.get_nowait()
        (self.prompt or self._default_prompt)(seat, button)
        if self.auto_press and self.prompt is None:
            if isinstance(dev, SimButton):
                dev.click()
            elif getattr(dev, "is_mock", False):
                dev.simulate_press()  # type: ignore[attr-defined]
        wrong: list[str] = []
        t0 = time.monotonic()
        deadline = t0 + self.button_timeout_s
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                extra_zh = f"；按错：{', '.join(wrong)}" if wrong else ""
                extra = f"; other buttons pressed: {', '.join(wrong)}" if wrong else ""
                return CheckResult("buttons", item, False,
                                   f"{self.button_timeout_s:g} s 内未按下{extra_zh} / not pressed within "
                                   f"{self.button_timeout_s:g} s{extra}")
            try:
                ev = events.get(timeout=left)
            except queue.Empty:
                continue
            if not ev.pressed:
                continue
            if ev.seat == seat and ev.button == button:
                return CheckResult("buttons", item, True,
                                   f"{ev.source}: {1000 * (time.monotonic() - t0):.0f} ms")
            wrong.append(f"{ev.seat}.{ev.button}")

    # -- camera ------------------------------------------------------------------------------

    def check_camera(self) -> list[CheckResult]:
        item = _label(None, "camera")
        try:
            source = self.table.open_camera()
        except Exception as exc:
            return [CheckResult("camera", item, False, f"{type(exc).__name__}: {exc}")]
        if source is None:
            return [CheckResult("camera", item, None, "未配置 / not fitted")]
        self.say("== 摄像头与四角标记 / camera and corner markers ==")
        got = source.read(timeout=self.camera_timeout_s)
        if got is None:
            why = source.status.error
            return [CheckResult("camera", item, False,
                                f"{self.camera_timeout_s:g} s 内无画面" + (f"：{why}" if why else "")
                                + f" / no frame within {self.camera_timeout_s:g} s" + (f": {why}" if why else ""))]
        _ts, frame = got
        try:
            found = find_corner_markers(frame, self.marker_detector)
        except Exception as exc:
            return [CheckResult("camera", item, False, f"标记检测失败：{exc} / marker detection failed: {exc}")]
        size = f"{frame.shape[1]}x{frame.shape[0]}"
        missing = [i for i in CORNER_MARKER_IDS if i not in found]
        if missing:
            return [CheckResult("camera", item, False,
                                f"{size}；缺少角标记 {', '.join(map(str, missing))}（已找到 {sorted(found) or '无'}） / "
                                f"missing corner markers {', '.join(map(str, missing))} "
                                f"(found {sorted(found) or 'none'})")]
        detail = f"{size}; 四角标记 0–3 均找到 / all four corner markers found"
        info = getattr(source, "info", None)  # a picamera2 camera says what it is
        if info:
            modes = ", ".join(f"{m['size'][0]}x{m['size'][1]}@{m['fps']:g}" for m in info.get("modes", ())
                              if m.get("size") and m.get("fps"))
            self.say(f"  型号 / model {info.get('model')}; 模式 / modes {modes or '?'}; 小画面 / lores "
                     f"{info['lores'][0]}x{info['lores'][1]}")
            detail = f"{info.get('model')} {detail}"
        if self.measure_placement is not None:
            try:
                m = self.measure_placement(frame)
            except ValueError as exc:
                self.say(f"  警告：无法测量像素密度（{str(exc).split(' / ')[0]}） / warning: px/mm not measured: {exc}")
            else:
                detail += f"; {m.worst:.2f} px/mm" + (f" {m.verdict}" if m.verdict else "")
                self.say(f"  {m.description}")
                for w in m.warnings:
                    self.say(f"  警告 / warning: {w}")
        return [CheckResult("camera", item, True, detail)]


def run_selftest(table: TableDevices, **options: object) -> SelfTestReport:
    """Run :class:`SelfTest` with ``options`` and return its report (the table is printed)."""
    return SelfTest(table, **options).run()  # type: ignore[arg-type]
