"""Makes the avatar tests' uploads with Pillow (marketplace-channels.md
Acceptance 5) into the directory named by argv[1]:

- landscape.png   600x300, left half red, right half blue
- rotated.jpg     400x200, left half red, right half blue, EXIF orientation 6
                  (shown rotated 90 degrees clockwise: red on top), with a
                  comment and EXIF text that must not survive
- photo.webp      300x300 WebP
- anim.gif        a GIF (refused even when named .png)
- truncated.png   the first half of landscape.png
- huge.png        a 20,000 x 20,000 PNG header (refused by its size)
- big.bin         6 MiB of noise (over the 5 MiB cap)
"""

import os
import struct
import sys
import zlib

from PIL import Image

out = sys.argv[1]


def halves(width, height):
    image = Image.new("RGB", (width, height), (0, 0, 255))
    image.paste((255, 0, 0), (0, 0, width // 2, height))
    return image


halves(600, 300).save(os.path.join(out, "landscape.png"))

exif = Image.Exif()
exif[0x0112] = 6  # Orientation: rotate 90 CW to show
exif[0x010E] = "secret description"  # ImageDescription
halves(400, 200).save(
    os.path.join(out, "rotated.jpg"), "JPEG", exif=exif.tobytes(), quality=95
)

halves(300, 300).save(os.path.join(out, "photo.webp"), "WEBP")

frames = [halves(64, 64), Image.new("RGB", (64, 64), (0, 255, 0))]
frames[0].save(os.path.join(out, "anim.gif"), save_all=True, append_images=frames[1:])

with open(os.path.join(out, "landscape.png"), "rb") as f:
    whole = f.read()
with open(os.path.join(out, "truncated.png"), "wb") as f:
    f.write(whole[: len(whole) // 2])


def chunk(kind, data):
    return (
        struct.pack(">I", len(data))
        + kind
        + data
        + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    )


header = struct.pack(">IIBBBBB", 20000, 20000, 8, 6, 0, 0, 0)
with open(os.path.join(out, "huge.png"), "wb") as f:
    f.write(
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(b"\x00" * 1024))
        + chunk(b"IEND", b"")
    )

with open(os.path.join(out, "big.bin"), "wb") as f:
    f.write(os.urandom(6 * 1024 * 1024))
