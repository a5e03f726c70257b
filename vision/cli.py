"""``guandan-table vision …`` sub-commands (collected by table_service/cli/__init__.py)."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import cv2
import numpy as np

from .files import read_small_text

if TYPE_CHECKING:
    from .cardnet.deckfile import Enrollment
    from .enroll_table import FoundCard

#: Image files the commands read from a folder: the same as ``hardware.camera.IMAGE_SUFFIXES`` (an
#: image folder the table's camera replays reads here too), repeated because vision and hardware may
#: not import each other (the "hardware-vision" contract in pyproject.toml); a test holds them equal.
IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp"})


#: ``enroll --camera``'s table config when ``--config`` is not given (the Pi's, deploy/README.md).
DEFAULT_TABLE_CONFIG = "/etc/guandan-table/table.toml"
#: Where ``enroll`` saves without ``--out`` and without a table config to say where the table reads.
DEFAULT_ENROLL_OUT = "data/deck-enrollment.npz"


#: The largest image a command decodes (pixels): a 48 Mpx phone photo passes; a 1.8 MB PNG that
#: declares 25,000 × 25,000 (decoded: 1.9 GB, 4.4 GB at its peak, more than a Pi has) does not.
MAX_IMAGE_PIXELS = 64_000_000


def _declared_size(head: bytes) -> tuple[int, int] | None:
    """(width, height) a PNG or JPEG file declares in its header, before anything is decoded; None
    for other formats (OpenCV's own limit then holds) or a header that does not say."""
    if head[:8] == b"\x89PNG\r\n\x1a\n" and len(head) >= 24:
        return int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")
    if head[:2] == b"\xff\xd8":
        i = 2
        while i + 9 <= len(head) and head[i] == 0xFF:
            marker, length = head[i + 1], int.from_bytes(head[i + 2:i + 4], "big")
            if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):  # a start of frame
                return int.from_bytes(head[i + 7:i + 9], "big"), int.from_bytes(head[i + 5:i + 7], "big")
            i += 2 + length
    return None


def _read_image(path: Path) -> np.ndarray:
    """The image at ``path``, or one clear error.

    Why not ``cv2.imread``: on a missing or undecodable file it prints its own ``[ WARN ]`` line
    to stderr before returning None, so the user saw OpenCV's noise above our message.  Reading
    the bytes ourselves and decoding them in memory says nothing on failure.
    """
    try:
        data = np.fromfile(str(path), np.uint8)
    except OSError as exc:
        raise ValueError(f"无法读取图像：{path}（{exc.strerror or exc}） / "
                         f"cannot read image: {path} ({exc.strerror or exc})") from None
    size = _declared_size(data.tobytes()[:65536])
    if size is not None and size[0] * size[1] > MAX_IMAGE_PIXELS:
        raise ValueError(f"图像过大：{path} 为 {size[0]}×{size[1]} 像素（至多 {MAX_IMAGE_PIXELS // 1_000_000} 百万像素） / "
                         f"image too large: {path} is {size[0]}×{size[1]} pixels "
                         f"(at most {MAX_IMAGE_PIXELS // 1_000_000} Mpx)")
    img = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
    if img is None:
        raise ValueError(f"无法读取图像：{path} / cannot read image: {path}")
    return img


def _given(text: str, what: str, zh: str | None = None) -> Path:
    """A path argument; "" (an unset shell variable) is refused rather than read as this folder."""
    if not text.strip():
        raise ValueError(f"{zh or what + ' '}为空字符串 / {what} is an empty string: give a path")
    return Path(text)


def _check_board(args: argparse.Namespace) -> None:
    """The ChArUco board's options, checked before any work (OpenCV answered an impossible board with an
    internal error: zero or negative squares, a marker wider than its square, more markers than the
    board's ArUco dictionary holds)."""
    from .calibration import BOARD_DICT

    if not (2 <= args.squares_x <= 40 and 2 <= args.squares_y <= 40):
        raise ValueError(f"格数须为 2–40，收到 {args.squares_x}×{args.squares_y} / "
                         f"--squares-x and --squares-y must be 2-40, got {args.squares_x}×{args.squares_y}")
    markers = args.squares_x * args.squares_y // 2
    held = cv2.aruco.getPredefinedDictionary(BOARD_DICT).bytesList.shape[0]
    if markers > held:
        raise ValueError(f"标记过多：{args.squares_x}×{args.squares_y} 的板需要 {markers} 个标记，最多 {held} 个 / "
                         f"too many markers: a {args.squares_x}×{args.squares_y} board needs {markers} markers, "
                         f"the board's dictionary holds {held}")
    if not (0 < args.marker_mm < args.square_mm <= 200):
        raise ValueError("须 0 < --marker-mm < --square-mm ≤ 200 / need 0 < marker-mm < square-mm <= 200")


def _check_out_file(out: Path, is_ours: Callable[[Path], bool], what: tuple[str, str]) -> None:
    """``--out`` checked before the work that fills it: not a folder, and not another file that
    saving would replace (a typo must not turn the event log into a calibration or an enrolment)."""
    if out.is_dir():
        raise ValueError(f"--out {out} 是文件夹，请给出文件名 / --out {out} is a folder: give a file name")
    if out.exists() and (not out.is_file() or (out.stat().st_size and not is_ours(out))):
        raise ValueError(f"--out {out} 已存在且不是{what[0]}，不覆盖 / --out {out} exists and is not {what[1]}: "
                         "not overwritten (remove it or choose another name)")


def _image_format(out: Path) -> str:
    """The extension OpenCV encodes ``out`` with, or a clear error (no writer for it)."""
    ext = out.suffix.lower()
    if not ext.isascii() or not cv2.haveImageWriter("x" + ext):
        raise ValueError(f"无法写成 {out.name} 的格式，请用 .png 或 .jpg / "
                         f"cannot write an image named {out.name}: use .png or .jpg")
    return ext


def _write_image(path: Path, img: np.ndarray) -> None:
    """Encode with OpenCV and write with Python: ``cv2.imwrite`` segfaulted on a path that is not
    valid UTF-8 and said only False when the file could not be written (a folder of that name, a full
    disk), which was then ignored.

    :raises ValueError: naming the file that could not be written, and why.
    """
    ok, buf = cv2.imencode(_image_format(path), img)
    if not ok:
        raise ValueError(f"无法编码图片 {path} / could not encode the image {path}")
    try:
        with open(path, "wb") as fh:
            fh.write(buf.tobytes())
    except OSError as exc:
        raise ValueError(f"无法写入图片 {path}（{exc.strerror or exc}） / "
                         f"could not write the image {path}: {exc.strerror or exc}") from None


def _is_board_image(path: Path) -> bool:
    """Whether ``path`` is a board image ``vision board`` wrote: black and white only, with the
    board's markers in it (a photo or another file of that name is not replaced without --force)."""
    from .calibration import BOARD_DICT

    try:
        img = cv2.imdecode(np.fromfile(path, np.uint8), cv2.IMREAD_UNCHANGED)
    except (OSError, ValueError, cv2.error):
        return False
    if img is None or img.ndim != 2 or not np.isin(img, (0, 255)).all():
        return False
    detector = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(BOARD_DICT))
    _corners, ids, _rejected = detector.detectMarkers(img)
    return ids is not None and len(ids) >= 4


def _is_lens_file(path: Path) -> bool:
    try:
        return isinstance(json.loads(read_small_text(path)).get("camera_matrix"), list)
    except (OSError, ValueError, AttributeError, RecursionError):
        return False


def _is_zip(path: Path) -> bool:
    try:
        with path.open("rb") as fh:
            return fh.read(4) == b"PK\x03\x04"
    except OSError:
        return False


def cmd_calibrate(args: argparse.Namespace) -> int:
    """One-off lens calibration from photos of the ChArUco board."""
    from .calibration import calibrate_lens, charuco_board

    folder = _given(args.images, "the photo folder", "照片目录")
    _check_board(args)
    out = _given(args.out, "--out")
    _check_out_file(out, _is_lens_file, ("镜头标定文件", "a lens calibration"))
    if not folder.is_dir():
        raise ValueError(f"照片目录不存在：{folder} / photo folder not found: {folder}")
    paths = sorted(p for p in folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
    if not paths:
        raise ValueError(f"目录 {folder} 中没有照片 / no photos in {folder}")
    board = charuco_board((args.squares_x, args.squares_y), args.square_mm, args.marker_mm)
    lens = calibrate_lens((_read_image(p) for p in paths), board)
    out.parent.mkdir(parents=True, exist_ok=True)
    lens.save(out)
    print(f"镜头标定完成：{len(paths)} 张照片，误差 rms {lens.rms_px:.3f} px -> {out} / lens calibrated from "
          f"{len(paths)} photos: rms {lens.rms_px:.3f} px -> {out}")
    return 0


def cmd_board(args: argparse.Namespace) -> int:
    """Write the ChArUco board to print for :func:`cmd_calibrate`."""
    from .calibration import charuco_board

    _check_board(args)
    out = _given(args.out, "--out")
    if out.is_dir() or not out.parent.is_dir():
        raise ValueError(f"输出路径 {out} 无效（文件夹不存在或是文件夹） / cannot write {out}: its folder does not exist "
                         "or it is a folder")
    _image_format(out)
    if not args.force:
        _check_out_file(out, _is_board_image, ("标定板图像", "a board image (--force replaces it)"))
    board = charuco_board((args.squares_x, args.squares_y), args.square_mm, args.marker_mm)
    ppm = 10.0
    img = board.generateImage((int(args.squares_x * args.square_mm * ppm), int(args.squares_y * args.square_mm * ppm)),
                              marginSize=int(10 * ppm))
    _write_image(out, img)
    print(f"标定板已写入 {args.out}（按 {ppm * 25.4:.0f} dpi 打印） / board written to {args.out} "
          f"(print at {ppm * 25.4:.0f} dpi)")
    return 0


def cmd_markers(args: argparse.Namespace) -> int:
    """Write the four table-corner markers (ids 0–3) as PNGs to print."""
    out = _given(args.out, "--out")
    if out.exists() and not out.is_dir():
        raise ValueError(f"--out {out} 是文件，须为放四张标记 PNG 的文件夹 / "
                         f"--out {out} is a file: give a folder for the four marker PNGs")
    out.mkdir(parents=True, exist_ok=True)
    d = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    for i in range(4):
        img = cv2.aruco.generateImageMarker(d, i, 600)
        img = cv2.copyMakeBorder(img, 100, 100, 100, 100, cv2.BORDER_CONSTANT, value=255)
        _write_image(out / f"table-marker-{i}.png", img)
    print(f"0–3 号桌角标记已写入 {out} / markers 0–3 written to {out}")
    return 0


def _prompt(picture_dir: Path) -> object:
    """The CLI's "which card is this?": the card's picture is written to ``picture_dir`` and its
    path shown with the reader's likely readings; Enter takes the first, ``-`` skips the card."""
    from .cards import check_card

    count = [0]

    def ask(card: FoundCard) -> str | None:
        count[0] += 1
        path = picture_dir / f"question-{count[0]:02d}.png"
        _write_image(path, card.zone)
        likely = card.likely
        hint = f" [{' '.join(likely)}]" if likely else ""
        while True:
            try:
                answer = input(f"这是哪张牌？{path}{hint} / which card is this? {path}{hint} "
                               "(回车=第一个 Enter=first, - 跳过 skip): ").strip()
            except EOFError:
                return None
            if answer == "-":
                return None
            if not answer and likely:
                return likely[0]
            try:
                return check_card(answer)
            except ValueError as exc:
                print(exc)

    return ask


def _frames_from_camera(args: argparse.Namespace) -> list[np.ndarray]:
    """The frames of ``--camera``, taken by the reader the layer above passed to :func:`register`
    (it reads the whole table.toml and opens the table's camera; vision knows neither)."""
    take = getattr(args, "camera_frames", None)
    if take is None:
        raise ValueError("--camera 需要桌面服务 / --camera needs the table service: run `guandan-table vision enroll --camera`")
    return take(args.config or DEFAULT_TABLE_CONFIG, args.decks)


def _enrol_out(args: argparse.Namespace) -> Path:
    """Where ``enroll`` saves: ``--out``; else, with a table config (``--config``, or ``--camera``'s
    default one), the file that table's service reads its deck from (``[vision] enrollment``, else
    ``<data_dir>/deck-enrollment.npz``), asked of the layer above that reads table.toml; else
    :data:`DEFAULT_ENROLL_OUT` under this folder.

    Why: the file went to ``./data/deck-enrollment.npz`` of whatever folder the command ran in, and
    the guide said it went to ``[vision] enrollment``: the table went on reading without it."""
    if args.out is not None:
        return _given(args.out, "--out")
    if args.config is not None:
        _given(args.config, "--config")
    config = args.config or (DEFAULT_TABLE_CONFIG if args.camera else None)
    where = getattr(args, "table_enrollment", None)
    if config is None or where is None:
        return Path(DEFAULT_ENROLL_OUT)
    out = Path(where(config))
    print(f"登记文件存为本桌（{config}）读牌所用文件：{out} / "
          f"saving to the deck file the table reads ({config}): {out}")
    return out


def cmd_enroll_table(args: argparse.Namespace) -> int:
    """Enrol from overhead frames of the deck laid face up in rows (``--frames`` or ``--camera``)."""
    import sys
    import tempfile

    from .calibration import LensCalibration
    from .cardnet.enrol import enroll
    from .enroll_table import TABLE_PPM, enrol_from_frames, joined_text, self_check
    from .geometry import TableLayout, default_layout

    if args.frames and len(args.frames) > 3:
        raise ValueError("最多三张画面 / at most 3 frames (one per deck laid out)")
    frames = ([_read_image(Path(f)) for f in args.frames] if args.frames
              else _frames_from_camera(args))
    layout = TableLayout.load(args.layout) if args.layout else default_layout()
    lens = LensCalibration.load(args.calibration) if args.calibration else None
    interactive = sys.stdin.isatty() and not args.no_questions
    if interactive:  # the questions' pictures live as long as the questions: nothing left in /tmp
        with tempfile.TemporaryDirectory(prefix="guandan-enrol-") as pictures:
            res = enrol_from_frames(frames, ask=_prompt(Path(pictures)), layout=layout, lens=lens)
    else:
        res = enrol_from_frames(frames, ask=None, layout=layout, lens=lens)
    named = sum(c.name is not None and not c.asked for c in res.cards)
    print(f"桌上找到 {len(res.cards)} 张牌，自动识别 {named} 张，提问 {res.questions} 张"
          f"（{res.seconds:.1f} 秒） / found {len(res.cards)} "
          f"cards, {named} named by the reader, {res.questions} asked ({res.seconds:.1f} s)")
    if res.joined:
        print(f"  {joined_text(res.joined)}")
    unclear = [c for c in res.cards if c.name is None]
    if unclear:
        print(f"  未识别 {len(unclear)} 张（这些牌按通用模型读{'' if interactive else '；在终端运行可逐张确认'}） / "
              f"not named: {len(unclear)} (read zero-shot{'' if interactive else ' — run in a terminal to be asked'})")
    if not res.faces:
        raise ValueError("没有可登记的牌面 / no face named: nothing to enrol")
    e = enroll(res.faces, px_per_mm=TABLE_PPM)
    check = self_check(res.cards, e)
    wrong = f"（{'、'.join(check.wrong_cards)}）" if check.wrong_cards else ""
    print(f"  自检：读对 {check.right} 张，存疑 {check.unsure} 张，读错 {check.wrong} 张{wrong} / self-check on the cards "
          f"found: {check.right} right, {check.unsure} unsure, {check.wrong} wrong"
          + (f" ({', '.join(check.wrong_cards)})" if check.wrong_cards else ""))
    if not check.ok and not args.force:
        raise ValueError(f"登记后读错 {check.wrong} 张自己的牌，未保存 / the enrolment misreads {check.wrong} of its own "
                         "cards: not saved (it would misread plays silently; --force saves it anyway)")
    _save_and_report(e, len(res.faces), args.out)
    return 0


def cmd_enroll(args: argparse.Namespace) -> int:
    """Enrol the deck in use from a folder of its 54 faces, one image per card named by it
    (``Ah.png``, ``Td.jpg``, ``SJ.png``, ``BJ.png``), each photographed flat and cropped to the card;
    or, with ``--frames`` / ``--camera``, from the deck laid face up on the table."""
    from .cardnet.enrol import enroll
    from .cards import ALL_CARDS

    # Before the photos are read and the deck learnt (minutes), not when saving it.
    args.out = _enrol_out(args)
    _check_out_file(args.out, _is_zip, ("登记文件", "an enrolment file"))
    if args.frames or args.camera:
        if args.faces:
            raise ValueError("牌面目录与 --frames/--camera 只能选一 / give a faces folder or --frames/--camera, not both")
        return cmd_enroll_table(args)
    if not args.faces:
        raise ValueError("需要牌面目录，或 --frames / --camera / a faces folder, --frames or --camera is needed")
    folder = Path(args.faces)
    if not folder.is_dir():
        raise ValueError(f"牌面目录不存在：{folder} / faces folder not found: {folder}")
    faces: dict[str, np.ndarray] = {}
    unknown = []
    for p in sorted(folder.iterdir()):
        if p.suffix.lower() not in IMAGE_SUFFIXES:
            continue
        if p.stem not in ALL_CARDS:
            unknown.append(p.name)
            continue
        faces[p.stem] = _read_image(p)
    if unknown:
        raise ValueError("文件名不是牌名 / file names that are not card names (e.g. Ah.png, Td.png, SJ.png): "
                         + ", ".join(unknown))
    missing = [c for c in ALL_CARDS if c not in faces]
    if missing and not args.allow_missing:
        raise ValueError(f"缺少 {len(missing)} 张牌面：{', '.join(missing)}"
                         f"（--allow-missing：只登记已有的牌面，其余按通用模型读） / "
                         f"{len(missing)} faces missing: {', '.join(missing)} "
                         "(--allow-missing: enrol the faces given; the others are read zero-shot)")
    e = enroll(faces, px_per_mm=args.px_per_mm)
    _save_and_report(e, len(faces), args.out)
    return 0


def _save_and_report(e: Enrollment, n_faces: int, out: Path) -> None:
    """Save an enrolment and say what it holds, including each face it could not learn and why."""
    out.parent.mkdir(parents=True, exist_ok=True)
    e.save(out)
    print(f"登记完成：{n_faces} 种牌面中登记了 {len(e.cards)} 种 -> {out} / deck enrolled: {len(e.cards)} of {n_faces} "
          f"faces -> {out}")
    for card, why in sorted(e.skipped.items()):
        why_zh, sep, why_en = why.partition(" / ")
        print(f"  未登记 {card}：{why_zh}（该牌按通用模型读） / not enrolled {card}: {why_en if sep else why} "
              "(read zero-shot)")
    absent = [c for c in e.not_enrolled if c not in e.skipped]
    if absent:
        print(f"  没有牌面的牌 {len(absent)} 张：{' '.join(absent)}（按通用模型读） / no face given or found for "
              f"{len(absent)}: {' '.join(absent)} (read zero-shot)")
    if e.check is not None:
        from .cardnet.fancheck import verdict

        warn, text = verdict(e.check)
        print(("  注意 / WARNING " if warn else "  ") + text)


def cmd_read(args: argparse.Namespace) -> int:
    """Read one rectified zone image (for checking a camera set-up by hand)."""
    from . import read_play
    from .cardnet.deckfile import Enrollment

    if args.enrollment is not None:  # "" read zero-shot and said nothing
        _given(args.enrollment, "--enrollment")
    e = Enrollment.load(args.enrollment) if args.enrollment else None
    r = read_play(_read_image(Path(args.image)), px_per_mm=args.px_per_mm, enrollment=e)
    print(json.dumps(r.to_json(), ensure_ascii=False))
    return 0


def register(subparsers: argparse._SubParsersAction,
             camera_frames: Callable[[str, int], list[np.ndarray]] | None = None,
             table_enrollment: Callable[[str], str] | None = None) -> None:
    """Add ``vision …``; ``camera_frames(config_path, count)`` takes ``enroll --camera``'s frames and
    ``table_enrollment(config_path)`` names the deck file that table reads (both given by the command
    line of the table service, which owns table.toml and the camera)."""
    p = subparsers.add_parser("vision", help="摄像头标定与读牌 / camera calibration and card reading",
                              description="镜头标定、打印标定板与桌角标记、登记本桌用牌、读一张牌区图 / lens "
                                          "calibration, the board and table-corner markers to print, enrolling the "
                                          "deck in use, reading one zone image")
    sub = p.add_subparsers(dest="vision_command", metavar="ACTION")
    sub.required = True

    def board_args(q: argparse.ArgumentParser) -> None:
        q.add_argument("--squares-x", type=int, default=7, help="棋盘横向格数 / board squares across (default 7)")
        q.add_argument("--squares-y", type=int, default=5, help="棋盘纵向格数 / board squares down (default 5)")
        q.add_argument("--square-mm", type=float, default=30.0,
                       help="打印后每格边长 mm / printed side of one square in mm (default 30)")
        q.add_argument("--marker-mm", type=float, default=22.0,
                       help="打印后标记边长 mm / printed side of one ArUco marker in mm (default 22)")

    c = sub.add_parser("calibrate", help="镜头标定（ChArUco） / lens calibration from ChArUco photos")
    c.add_argument("images", help="标定板照片目录 / folder of photos of the ChArUco board")
    c.add_argument("--out", default="data/lens.json",
                   help="标定结果保存位置 / where to save the calibration (JSON; default data/lens.json)")
    board_args(c)
    c.set_defaults(func=cmd_calibrate)

    b = sub.add_parser("board", help="生成标定板 / write the ChArUco board image to print")
    b.add_argument("--out", default="charuco-board.png",
                   help="标定板图像保存位置 / where to write the board image (default charuco-board.png)")
    b.add_argument("--force", action="store_true",
                   help="覆盖已有的其他文件 / replace an existing file that is not a board image")
    board_args(b)
    b.set_defaults(func=cmd_board)

    m = sub.add_parser("markers", help="生成桌角标记 / write the table-corner ArUco markers")
    m.add_argument("--out", default="table-markers",
                   help="标记图像目录 / folder for the four marker PNGs (default table-markers)")
    m.set_defaults(func=cmd_markers)

    r = sub.add_parser("read", help="读取一张牌区图 / read one rectified zone image")
    r.add_argument("image", help="已校正的牌区图像 / a rectified, upright play-zone image (PNG/JPEG)")
    r.add_argument("--px-per-mm", type=float, default=3.0,
                   help="图像比例 px/mm / scale of the image in pixels per mm (default 3.0)")
    r.add_argument("--enrollment", default=None,
                   help="登记文件 / enrolment file from `vision enroll` (default: read zero-shot)")
    r.set_defaults(func=cmd_read)

    e = sub.add_parser("enroll", help="登记本桌用牌（牌面照片，或桌上成行摆放） / enrol the deck in use from face "
                                      "photos, or laid out on the table")
    e.add_argument("faces", nargs="?", default=None,
                   help="牌面照片目录 / folder with one image per card, named by the card: Ah.png … Td.png, SJ.png, BJ.png")
    e.add_argument("--frames", nargs="+", metavar="IMAGE", default=None,
                   help="桌面俯拍画面（最多 3 张） / overhead frames of the deck laid face up in rows (≤ 3)")
    e.add_argument("--camera", action="store_true",
                   help="用桌上摄像头拍摄 / take the frames with the table's camera ([camera] of --config)")
    e.add_argument("--config", default=None,
                   help=f"桌配置：--camera 用其 [camera]，未给 --out 时存为该桌读牌所用文件（--camera 默认："
                        f"{DEFAULT_TABLE_CONFIG}） / table config: --camera uses "
                        f"its [camera], and without --out the enrolment goes to the deck file that table reads "
                        f"([vision] enrollment, else <data_dir>/deck-enrollment.npz; --camera default: {DEFAULT_TABLE_CONFIG})")
    e.add_argument("--decks", type=int, default=1, choices=(1, 2, 3),
                   help="摆放几次（同款牌两副=2） / how many layouts to photograph with --camera (two decks of one design: 2)")
    e.add_argument("--layout", default=None, help="桌面布局 JSON / table layout JSON (default: the standard 900 mm table)")
    e.add_argument("--calibration", default=None, help="镜头标定文件 / lens calibration from `vision calibrate`")
    e.add_argument("--force", action="store_true",
                   help="自检读错也保存 / save even if the enrolment misreads cards it was made from")
    e.add_argument("--no-questions", action="store_true",
                   help="不提问，未识别的牌按通用模型读 / ask nothing; unclear cards are read zero-shot")
    e.add_argument("--px-per-mm", type=float, default=3.0, help="牌面照片比例 px/mm / scale of the face photos in pixels per mm (default 3.0)")
    e.add_argument("--out", default=None, help=f"登记文件保存位置（默认：--config 所指桌的读牌文件，否则为本文件夹下的 "
                                             f"{DEFAULT_ENROLL_OUT}） / "
                                             f"where to save the enrolment (default: the deck file "
                                             f"of --config's table, else {DEFAULT_ENROLL_OUT} under this folder)")
    e.add_argument("--allow-missing", action="store_true", help="缺少部分牌面也登记（缺的牌按通用模型读） / enrol even if some faces are missing (those cards are read zero-shot)")
    e.set_defaults(func=cmd_enroll, camera_frames=camera_frames, table_enrollment=table_enrollment)
