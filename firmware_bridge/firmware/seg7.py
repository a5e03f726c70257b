"""Seven-segment glyphs for the 4-digit TM1637 seat displays (bit 0 = segment a ... bit 6 = g).

Shared by the firmware (text -> segments) and the emulator (segments -> text, what a person reads).
Letters that look like digits (S/5, O/0, I/1, Z/2, B/8, G/6) read back as the digit.
"""

GLYPHS = {
    " ": 0x00, "0": 0x3F, "1": 0x06, "2": 0x5B, "3": 0x4F, "4": 0x66, "5": 0x6D, "6": 0x7D, "7": 0x07,
    "8": 0x7F, "9": 0x6F, "-": 0x40, "_": 0x08, "=": 0x48, "A": 0x77, "B": 0x7F, "C": 0x39, "D": 0x5E,
    "E": 0x79, "F": 0x71, "G": 0x7D, "H": 0x76, "I": 0x06, "J": 0x1E, "L": 0x38, "N": 0x54, "O": 0x3F,
    "P": 0x73, "R": 0x50, "S": 0x6D, "T": 0x78, "U": 0x3E, "Y": 0x6E, "Z": 0x5B,
}

#: Segments -> the character a reader sees (digits win over look-alike letters).
READ = {}
for _ch in " 0123456789-_=ACDEFHJLNPRTUY":
    READ[GLYPHS[_ch]] = _ch

WIDTH = 4


def can_show(text):
    """True if every character of ``text`` (case-insensitive) has a glyph and it fits 4 digits."""
    if len(text) > WIDTH:
        return False
    return all(ch in GLYPHS for ch in text.upper())


def encode(text):
    """Four segment bytes for ``text`` (upper-cased, left-aligned, unknown characters blank)."""
    text = (text.upper() + "    ")[:WIDTH]
    return bytes([GLYPHS.get(ch, 0) for ch in text])


def decode(segs):
    """What a person reads on the display; unknown segment patterns read as ``?``."""
    return "".join(READ.get(b & 0x7F, "?") for b in segs)
